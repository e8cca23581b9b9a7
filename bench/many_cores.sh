#!/usr/bin/env bash
# Many-core figures in one call, on every core of this machine (docs/harness.md: peaks, the
# no-runtime floor): builds the release, then in one window
#   1. the no-runtime floor at full width, stencil_1d and nearest radix 5 (bench_exchange_floor);
#   2. the peak with 1 core and with all of them (`taskbench peak --cores 1,C`);
#   3. METG(50%) of the systems, stencil_1d then nearest radix 5, 1000 steps x C, compute_bound,
#      every system's runs interleaved in one campaign per pattern (MPI: one rank per core);
#   4. the report.
# Everything lands in OUT: build.log, floor.txt, taskbench.db, metg-*.txt, report.html.
#
# Usage: bench/many_cores.sh OUT [system...]   (default: native mpi_p2p openmp_for openmp_task
#        openmp_taskloop; env REPS=3 STEPS=1000 TIMEOUT=120)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/many_cores.sh OUT [system...]}
shift
systems=("$@")
[ ${#systems[@]} -gt 0 ] || systems=(native mpi_p2p openmp_for openmp_task openmp_taskloop)
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
cores=$("$python" -c 'import os; print(len(os.sched_getaffinity(0)))')
reps=${REPS:-3}
steps=${STEPS:-1000}

echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $cores cores"
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }

# shellcheck source=bench/with_scipy.sh
. bench/with_scipy.sh
with_scipy "$out" || exit 1
tb() { PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" "$python" -m taskbench --db "$out/taskbench.db" "$@"; }

for graph in "-type stencil_1d" "-type nearest -radix 5"; do
  # shellcheck disable=SC2086  # the graph's flags are words
  build/bench/bench_exchange_floor -workers "$cores" -width "$cores" -steps "$steps" -reps 10 $graph
done | tee "$out/floor.txt"

tb peak --cores "1,$cores" --reps 5 | tee "$out/peak.txt"
for pattern in "stencil_1d" "nearest --radix 5"; do
  name=metg-${pattern%% *}
  # shellcheck disable=SC2086
  tb metg "${systems[@]}" --pattern $pattern --steps "$steps" --width "$cores" --kernel compute_bound \
    --reps "$reps" --timeout "${TIMEOUT:-120}" --campaign "$name-$(date -u +%H%M%S)" | tee "$out/$name.txt"
done
tb report --html "$out/report.html" >/dev/null
echo "# done: $out"
