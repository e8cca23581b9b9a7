#!/usr/bin/env bash
# This project's own regression gate for the native runtime (tbrt): builds REF (a commit, branch
# or tag) in a git worktree, then `taskbench check` of this checkout's build (the candidate)
# against it, interleaved, for native and the other tbrt systems.
# Usage: bench/check_native.sh REF [more taskbench check options, e.g. --quick]
# Exit status: taskbench check's (0 nothing regressed, 1 regressed, 5 inconclusive).
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: bench/check_native.sh REF [taskbench check options]}
shift
base=$(mktemp -d /tmp/taskbench-base.XXXXXX)
cleanup() { git worktree remove --force "$base/src" >/dev/null 2>&1 || true; rm -rf "$base"; }
trap cleanup EXIT
git worktree add --detach "$base/src" "$ref" >/dev/null
echo "building $ref ($(git -C "$base/src" rev-parse --short HEAD)) in $base/build (native systems only)"
cmake -S "$base/src" -B "$base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$base/configure.log" 2>&1
ninja -C "$base/build" native native_fifo native_dynamic > "$base/build.log" 2>&1
ninja -C build native native_fifo native_dynamic > /dev/null
.venv/bin/python -m taskbench check native native_fifo native_dynamic --baseline-build "$base/build" "$@"
