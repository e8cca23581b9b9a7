#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the METG sweep of the default systems
# on stencil_1d / compute_bound (table on the terminal, taskbench-report.html with the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
.venv/bin/taskbench metg --default "$@"
