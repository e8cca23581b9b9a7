#!/usr/bin/env bash
# The regression gate's two proofs on this machine (docs/regression-gate.md):
#   A/A: `taskbench check --quick` of a build against a copy of itself, TRIALS times: how many
#        trials call some metric regressed (a false alarm), improved, unchanged or inconclusive;
#   A/B: the same build against itself built at -O0 (CMAKE_BUILD_TYPE=Debug: the slower
#        build), and native_dynamic presented as native's candidate: each must be regressed.
# Usage: bench/check_false_alarms.sh [TRIALS=20] [SYSTEMS=native]   (~15 s a trial on 2 cores)
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

declare -A count=([regressed]=0 [improved]=0 [unchanged]=0 [inconclusive]=0)
for trial in $(seq "$trials"); do
  taskbench -q check $systems --baseline-build "$work/copy" --quick > "$work/out.tsv" 2>/dev/null || true
  verdicts=$(awk -F'\t' 'NR > 1 { print $6 }' "$work/out.tsv" | sort | uniq -c | tr -s ' ' | paste -sd';')
  for v in regressed improved unchanged inconclusive; do
    if grep -q "$v" <<<"$verdicts"; then count[$v]=$((count[$v] + 1)); fi
  done
  echo "A/A trial $trial: $verdicts"
done
echo "A/A, $trials trials of '$systems' (--quick): trials with a metric regressed ${count[regressed]}," \
     "improved ${count[improved]}, unchanged ${count[unchanged]}, inconclusive ${count[inconclusive]}"

echo "A/B: native built with CMAKE_BUILD_TYPE=Debug (-O0) as the candidate, this build as the baseline"
cmake -S . -B "$work/debug" -G Ninja -DCMAKE_BUILD_TYPE=Debug > "$work/debug.log" 2>&1
ninja -C "$work/debug" native >> "$work/debug.log" 2>&1
taskbench -q --build-dir "$work/debug" check native --baseline-build build --quick | cut -f1,2,5,6 || true
echo "A/B: native_dynamic presented as native's candidate (native run as an external port)"
taskbench -q check native_dynamic --baseline-external "native_build=$(nproc):build/bin/native -worker $(nproc)" --quick \
  | cut -f1,2,5,6 || true
