#!/usr/bin/env bash
# charm4py beside serial, native and dask: METG(50%) on stencil_1d 1000 x 2 (compute_bound, one
# interleaved harness campaign), then the empty-task overhead per task (best of 3 interleaved
# rounds). legate is not measured: it cannot load here (systems/legate/README.md).
# Stored in $TASKBENCH_DB (default paper-engines.db), campaign charm-<time>.
# Usage: bench/paper_engines_charm_legate.sh [--tries N]
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-paper-engines.db}
stamp=$(date +%Y%m%d-%H%M%S)
# The start size is large enough for charm4py (~2.8 ms per row's messages) to be efficient there.
PYTHONPATH=python .venv/bin/python -m taskbench metg serial native dask charm4py --pattern stencil_1d \
  --steps 1000 --width 2 --kernel compute_bound --reps 1 --tries 2 --start-iter 16777216 --timeout 300 \
  --campaign charm-$stamp "$@"
.venv/bin/python bench/system_overhead.py --systems serial,native,dask,charm4py --rounds 3
