#!/usr/bin/env bash
# GPU figures in one call on the GPU machine (docs/gpu.md; at most 9 minutes there): builds the
# release with the CUDA component, runs the GPU tests (`pytest -m gpu`), then in one window
#   1. per-task overhead of cuda and cuda_graph (empty kernel, stencil_1d and nearest radix 5,
#      1000 steps, width 16 and 64): the best of REPS runs' elapsed time / tasks, interleaved;
#   2. the GPU's peak at those widths (`taskbench peak --gpu`) and the CPU's at all cores;
#   3. METG(50%) of cuda and cuda_graph per pattern and width, with mpi_p2p on all cores;
#   4. the paper's Fig. 13 (`taskbench study gpu_offload`: mpi_p2p, mpi_cuda w1 and w4,
#      cuda_graph, FLOP/s against the normalized problem size);
#   5. the report.
# Everything lands in OUT: build.log, tests.txt, overhead.txt, peak.txt, metg-*.txt,
# gpu_offload.txt, taskbench.db, report.html.
#
# Usage: bench/gpu.sh OUT   (env REPS=5 STEPS=1000 WIDTHS="16 64" TIMEOUT=60 METG_REPS=2
#        FIG13=quick|full; the defaults are sized for the 9 minutes by estimate: this script has
#        not yet run on a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/gpu.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
reps=${REPS:-5}
steps=${STEPS:-1000}
widths=${WIDTHS:-16 64}
timeout=${TIMEOUT:-60}
metg_reps=${METG_REPS:-2}
fig13=${FIG13:-quick}
cores=$("$python" -c 'import os; print(len(os.sched_getaffinity(0)))')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $cores cores"
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DTASKBENCH_WITH_CUDA=ON >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }

"$python" -m pytest -q -p no:cacheprovider -m gpu tests/e2e/test_gpu_systems.py >"$out/tests.txt" 2>&1 ||
  echo "# GPU tests FAILED: $out/tests.txt"
tail -1 "$out/tests.txt"

# 1. Overhead per task: best of REPS, the systems interleaved within each repetition.
overhead() {
  "$python" - "$reps" "$steps" "$widths" <<'PY'
import re, subprocess, sys
reps, steps, widths = int(sys.argv[1]), sys.argv[2], sys.argv[3].split()
graphs = {"stencil_1d": ["-type", "stencil_1d"], "nearest r5": ["-type", "nearest", "-radix", "5"]}
print(f"{'graph':12} {'width':>5} {'system':11} {'us/task':>8}  (best of {reps}, empty kernel, {steps} steps)")
for name, graph in graphs.items():
    for width in widths:
        best = {}
        for _ in range(reps):
            for system in ("cuda", "cuda_graph"):
                got = subprocess.run([f"build/bin/{system}", "-steps", steps, "-width", width, "-kernel", "empty", *graph],
                                     capture_output=True, text=True, timeout=300)
                if got.returncode:
                    sys.exit(f"{system}: {got.stderr.strip()}")
                elapsed = float(re.search(r"Elapsed Time ([0-9.e+-]+)", got.stdout).group(1))
                tasks = int(re.search(r"Total Tasks (\d+)", got.stdout).group(1))
                best[system] = min(best.get(system, 1e30), elapsed / tasks)
        for system, seconds in best.items():
            print(f"{name:12} {width:>5} {system:11} {seconds * 1e6:8.3f}")
        print(f"{name:12} {width:>5} {'ratio':11} {best['cuda_graph'] / best['cuda']:8.3f}  (cuda_graph / cuda)")
PY
}
overhead | tee "$out/overhead.txt"

# shellcheck source=bench/with_scipy.sh
. bench/with_scipy.sh
with_scipy "$out" || exit 1
tb() { PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" "$python" -m taskbench --db "$out/taskbench.db" "$@"; }
tb peak --gpu --widths "${widths// /,}" --reps 3 | tee "$out/peak.txt"
tb peak --cores "$cores" --reps 3 | tee -a "$out/peak.txt"

# 3. METG per pattern and width, the systems of one campaign interleaved.
for pattern in "stencil_1d" "nearest --radix 5"; do
  for width in $widths; do
    name=metg-${pattern%% *}-$width
    # shellcheck disable=SC2086  # the pattern's flags are words
    tb metg cuda cuda_graph --pattern $pattern --steps "$steps" --width "$width" --kernel compute_bound \
      --reps "$metg_reps" --timeout "$timeout" --campaign "$name-$(date -u +%H%M%S)" | tee "$out/$name.txt"
  done
done
# shellcheck disable=SC2086
tb metg mpi_p2p --pattern stencil_1d --steps "$steps" --width "$cores" --kernel compute_bound --reps "$metg_reps" \
  --timeout "$timeout" --campaign "metg-mpi_p2p-$cores-$(date -u +%H%M%S)" | tee "$out/metg-mpi_p2p.txt"

# 4. The paper's Fig. 13.
# shellcheck disable=SC2046
tb study gpu_offload $([ "$fig13" = full ] || echo --quick) | tee "$out/gpu_offload.txt"

tb report --html "$out/report.html" >/dev/null
echo "# done: $out"
