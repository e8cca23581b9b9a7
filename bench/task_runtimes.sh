#!/usr/bin/env bash
# The C++ and Rust task runtimes users compare, beside openmp_for, openmp_task_window and
# native: METG(50%) on stencil_1d and nearest radix 5, 1000 steps x 2 points (nearest: 5 points, the fewest with
# 5 inputs per task), compute_bound, one
# harness campaign per pattern, so every ratio is taken within one interleaved run. Then the
# empty-task overhead of the same systems (bench/system_overhead.py, best of interleaved rounds)
# and their instructions per task by function (bench/task_cost_callgrind.py: load-independent,
# one worker, so that no thread's spinning is counted).
# Stored in $TASKBENCH_DB (default task-runtimes.db); campaigns task-runtimes-<pattern>-<time>.
# Usage: bench/task_runtimes.sh [more taskbench metg options, e.g. --reps 3]   (~30 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-task-runtimes.db}
taskbench() { .venv/bin/taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--steps 1000 --kernel compute_bound "$@")
systems=(openmp_for openmp_task_window native tbb_tasks tbb_flow tbb_flow_persistent rust_rayon rust_rayon_dataflow
         starpu_local starpu_eager)

taskbench metg "${systems[@]}" --pattern stencil_1d --width 2 "${common[@]}" --campaign task-runtimes-stencil_1d-$stamp
taskbench metg "${systems[@]}" --pattern nearest --radix 5 --width 5 "${common[@]}" --campaign task-runtimes-nearest-$stamp
.venv/bin/python bench/system_overhead.py --rounds 5 --systems "$(IFS=,; echo "${systems[*]}")"
# openmp's waiting threads would spin through valgrind's turns: passive, as for the others' sleep.
.venv/bin/python bench/task_cost_callgrind.py --portable --workers 1 --top 12 openmp_for:OMP_WAIT_POLICY=passive \
  openmp_task_window:OMP_WAIT_POLICY=passive native tbb_tasks tbb_flow tbb_flow_persistent rust_rayon \
  rust_rayon_dataflow starpu_local starpu_eager
