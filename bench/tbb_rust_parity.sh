#!/usr/bin/env bash
# METG(50%) of tbb_flow, tbb_flow_persistent, tbb_tasks, rust_rayon and rust_rayon_dataflow
# beside openmp_for, openmp_task and native, stencil_1d and nearest radix 5, 1000 steps x 2
# points, compute_bound: one harness campaign per pattern, so every ratio is taken within one
# interleaved run. Then the empty-task overhead of the same systems (bench/system_overhead.py,
# interleaved rounds, best kept). Stored in $TASKBENCH_DB (default tbb-rust-parity.db);
# campaigns named tbbrust-<pattern>-<time>.
# Usage: bench/tbb_rust_parity.sh [more taskbench metg options, e.g. --reps 2]
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-tbb-rust-parity.db}
taskbench() { PYTHONPATH=python .venv/bin/python -m taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--steps 1000 --width 2 --kernel compute_bound "$@")
systems=(openmp_for openmp_task native tbb_flow tbb_flow_persistent tbb_tasks rust_rayon rust_rayon_dataflow)

taskbench metg "${systems[@]}" --pattern stencil_1d "${common[@]}" --campaign tbbrust-stencil_1d-$stamp
taskbench metg "${systems[@]}" --pattern nearest --radix 5 "${common[@]}" --campaign tbbrust-nearest-$stamp
.venv/bin/python bench/system_overhead.py --rounds 5 --systems "$(IFS=,; echo "${systems[*]}")"
