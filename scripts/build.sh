#!/usr/bin/env bash
# Configures and builds one build directory: scripts/build.sh [-S SOURCE] DIR [cmake options...]
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=.
if [ "${1:-}" = "-S" ]; then
  source_dir=$2
  shift 2
fi
dir=$1
shift
cmake -S "$source_dir" -B "$dir" -G Ninja "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
grep -A40 "taskbench configuration" "$dir.configure.log" | grep -- "--  " || true
cmake --build "$dir" -j "$(nproc)"
