#!/usr/bin/env bash
# METG(50%) of every OpenMP system beside openmp_for and native, stencil_1d and nearest radix 5,
# 1000 steps x 2 points (nearest: 5 points, the fewest with
# 5 inputs per task), compute_bound: one harness campaign per pattern, so every ratio is
# taken within one interleaved run. Then mpi_openmp as 1 rank x 2 threads beside openmp_for,
# and as 2 ranks x 1 thread beside mpi_p2p. Stored in $TASKBENCH_DB (default openmp-parity.db);
# campaigns named parity-<pattern>-<time>, parity-mpi-1x2-<time>, parity-mpi-2x1-<time>.
# Usage: bench/openmp_parity.sh [--reps N]   (takes ~25 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-openmp-parity.db}
taskbench() { .venv/bin/taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--steps 1000 --kernel compute_bound "$@")
openmp=(openmp_for openmp_for_dynamic openmp_for_guided openmp_for_llvm
        openmp_task openmp_task_llvm openmp_task_window openmp_task_window_llvm
        openmp_task_window_prio openmp_task_window_prio_llvm
        openmp_taskloop openmp_taskloop_llvm native)

taskbench metg "${openmp[@]}" --pattern stencil_1d --width 2 "${common[@]}" --campaign parity-stencil_1d-$stamp
taskbench metg "${openmp[@]}" --pattern nearest --radix 5 --width 5 "${common[@]}" --campaign parity-nearest-$stamp
taskbench metg openmp_for mpi_openmp --ranks 1 --threads-per-rank 2 --pattern stencil_1d --width 2 \
  "${common[@]}" --campaign parity-mpi-1x2-$stamp
taskbench metg mpi_p2p mpi_openmp --ranks 2 --threads-per-rank 1 --pattern stencil_1d --width 2 \
  "${common[@]}" --campaign parity-mpi-2x1-$stamp
