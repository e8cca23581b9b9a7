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
mkdir -p "$dir"
log="$dir/configure.log"
cmake -S "$source_dir" -B "$dir" -G Ninja "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
grep -A40 "taskbench configuration" "$log" | grep -- "--  " || true
cmake --build "$dir" -j "$(nproc)"
