#!/usr/bin/env bash
# The regression gate's two proofs on this machine (docs/regression-gate.md):
#   A/A: `taskbench check --quick` of a build against a copy of itself, TRIALS times: how many
#        trials call some metric regressed (a false alarm), improved, unchanged or inconclusive;
#   A/B: the same build against itself built at -O0 (CMAKE_BUILD_TYPE=Debug: the slower
#        build), and native_dynamic presented as native's candidate: each must be regressed.
# Usage: bench/check_false_alarms.sh [TRIALS=20] [SYSTEMS=native]   (~45 s a trial and system on 2 cores)
# Prints a line per trial and the counts; never fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-20}
systems=${2:-native}
work=$(mktemp -d /tmp/taskbench-check-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export TASKBENCH_DB=$work/check.db
taskbench() { .venv/bin/python -m taskbench "$@"; }

# A copy of this build's binaries: the same code, another path (the gate refuses the same binary).
mkdir -p "$work/copy/bin"
for s in $systems; do cp "build/bin/$s" "$work/copy/bin/"; done

declare -A exits=()
: > "$work/cells.tsv"
seconds=()
for trial in $(seq "$trials"); do
  status=0 start=$SECONDS
  taskbench -q check $systems --baseline-build "$work/copy" --quick > "$work/out.tsv" 2>/dev/null || status=$?
  exits[$status]=$(( ${exits[$status]:-0} + 1 ))
  awk -F'\t' 'NR > 1 { print $1 "\t" $2 "\t" $6 }' "$work/out.tsv" >> "$work/cells.tsv"
  seconds+=($(( SECONDS - start )))
  # A cell not unchanged says why (too wide, noise seen, a second measurement disagreed).
  echo "A/A trial $trial: exit $status, ${seconds[-1]} s; $(awk -F'\t' 'NR > 1 {
    printf "%s %s: %s (%s)%s; ", $1, $2, $6, $5, ($6 == "unchanged" ? "" : " because " $7) }' "$work/out.tsv")"
done
echo "A/A, $trials trials of '$systems' (--quick): exit status 0 (all unchanged) ${exits[0]:-0}," \
     "1 (a false alarm) ${exits[1]:-0}, 5 (inconclusive) ${exits[5]:-0}; verdicts per metric:"
sort "$work/cells.tsv" | uniq -c | sed 's/^/  /'
echo "A/A: one trial's time (check --quick of '$systems', load $(cut -d' ' -f1 /proc/loadavg)): median" \
     "$(printf '%s\n' "${seconds[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') s," \
     "range $(printf '%s\n' "${seconds[@]}" | sort -n | sed -n '1p;$p' | paste -sd-) s"

echo "A/B: native built with CMAKE_BUILD_TYPE=Debug (-O0) as the candidate, this build as the baseline"
cmake -S . -B "$work/debug" -G Ninja -DCMAKE_BUILD_TYPE=Debug > "$work/debug.log" 2>&1
ninja -C "$work/debug" native >> "$work/debug.log" 2>&1
taskbench -q --build-dir "$work/debug" check native --baseline-build build --quick | cut -f1,2,5,6 || true
echo "A/B: native_dynamic presented as native's candidate (native run as an external port)"
taskbench -q check native_dynamic --baseline-external "native_build=$(nproc):build/bin/native -worker $(nproc)" --quick \
  | cut -f1,2,5,6 || true
