#!/usr/bin/env bash
# METG(50%) of starpu (default scheduler, lws) and starpu_eager beside openmp_for and
# openmp_task, stencil_1d and nearest radix 5, 1000 steps x 2 points, compute_bound: one harness
# campaign per pattern, so every ratio is taken within one interleaved run. Then the empty-task
# cost per task of the same systems (bench/system_overhead.py) and their instruction counts per
# task (bench/task_cost_callgrind.py). Stored in $TASKBENCH_DB (default
# starpu-overhead.db); campaigns named starpu-<pattern>-<time>.
# Usage: bench/starpu_overhead.sh [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-starpu-overhead.db}
taskbench() { PYTHONPATH=python .venv/bin/python -m taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--steps 1000 --width 2 --kernel compute_bound "$@")
systems=(openmp_for openmp_task starpu starpu_eager)

taskbench metg "${systems[@]}" --pattern stencil_1d "${common[@]}" --campaign starpu-stencil_1d-$stamp
taskbench metg "${systems[@]}" --pattern nearest --radix 5 "${common[@]}" --campaign starpu-nearest-$stamp
python3 bench/system_overhead.py --rounds 5 --systems openmp_for,openmp_task,starpu,starpu_eager
# Instructions per task by function, independent of load (the table in systems/starpu/README.md).
python3 bench/task_cost_callgrind.py starpu starpu_eager \
  openmp_task:OMP_WAIT_POLICY=passive openmp_for:OMP_WAIT_POLICY=passive
