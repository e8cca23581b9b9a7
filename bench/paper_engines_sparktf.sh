#!/usr/bin/env bash
# METG(50%) of spark and tensorflow beside serial, native and dask (issue 12), stencil_1d,
# compute_bound, one interleaved harness campaign; then the empty-task overhead of the same
# systems (bench/system_overhead.py, best of interleaved rounds). Spark runs one job per
# timestep, so its sweep uses fewer steps (SPARK_STEPS, default 10: say so beside its figure).
# Stored in $TASKBENCH_DB (default paper-engines-sparktf.db), campaign sparktf-<time>.
# Needs scripts/install-large-engines.sh first. Run it in a quiet window, under
# flock /tmp/bench.lock on a shared machine.
# Usage: bench/paper_engines_sparktf.sh [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-paper-engines-sparktf.db}
taskbench() { PYTHONPATH=python .venv/bin/python -m taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--pattern stencil_1d --width 2 --kernel compute_bound --reps 1 --tries 2 --timeout 300 "$@")

taskbench metg serial native dask tensorflow --steps 1000 --start-iter 1048576 "${common[@]}" \
  --campaign sparktf-$stamp
taskbench metg serial spark --steps "${SPARK_STEPS:-10}" --start-iter 2147483648 "${common[@]}" \
  --campaign sparktf-spark-$stamp
.venv/bin/python bench/system_overhead.py --systems serial,native,dask,tensorflow --rounds 3
.venv/bin/python bench/system_overhead.py --systems serial,spark --steps 20 --rounds 2
