#!/usr/bin/env bash
# The paper's remaining engines that run here: charm4py and tensorflow beside serial,
# native and dask_threaded, METG(50%) on stencil_1d 1000 x 2, compute_bound, in one interleaved campaign;
# pyspark (Spark through Python, not the paper's Scala port), whose every timestep is a Spark
# job of a fraction of a second, in a campaign of SPARK_STEPS (default 10) steps with serial and
# dask_threaded beside it. Then the empty-task overhead of
# each (bench/system_overhead.py, best of interleaved rounds). legate cannot load here
# (systems/legate/README.md). Needs scripts/install-large-engines.sh first.
# Stored in $TASKBENCH_DB (default paper-engines.db); campaigns paper-engines-<time> and
# paper-engines-pyspark-<time>.
# Usage: bench/paper_engines.sh [more taskbench metg options, e.g. --reps 2]   (~20 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-paper-engines.db}
taskbench() { .venv/bin/taskbench "$@"; }
stamp=$(date +%Y%m%d-%H%M%S)
common=(--pattern stencil_1d --width 2 --kernel compute_bound --tries 2 --timeout 300 "$@")

# The sweep goes up from --start-iter twice at most: start where dask_threaded and tensorflow (~0.5 ms per
# task) are efficient, native and serial then sweep down from there.
taskbench metg serial native dask_threaded charm4py tensorflow --steps 1000 --start-iter 2097152 "${common[@]}" \
  --campaign paper-engines-$stamp
# 2^28 iterations: about 0.7 s per task, where a Spark job per timestep is amortised.
taskbench metg serial dask_threaded pyspark --steps "${SPARK_STEPS:-10}" --start-iter 268435456 "${common[@]}" \
  --campaign paper-engines-pyspark-$stamp
.venv/bin/python bench/system_overhead.py --systems serial,native,dask_threaded,charm4py,tensorflow --rounds 3
.venv/bin/python bench/system_overhead.py --systems serial,dask_threaded,pyspark --steps 20 --rounds 2
