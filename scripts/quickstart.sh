#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
for system in serial openmp_for openmp_task; do
  echo "== $system: stencil_1d, compute_bound, 1000 steps x $(nproc) points"
  build/bin/$system -steps 1000 -width "$(nproc)" -type stencil_1d -kernel compute_bound -iter 4096 | tail -8
done
