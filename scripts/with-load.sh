#!/usr/bin/env bash
# Runs a command beside N busy processes, as on a shared machine whose other tenants keep every
# core busy: scripts/with-load.sh N COMMAND [ARGS...]. The busy processes are plain shell loops
# (no pinning: the scheduler spreads them as it would other tenants' work); each ends by itself
# after LOAD_SECONDS (default 3600) even if this script is killed, and all are stopped when the
# command ends. The exit status is the command's.
set -uo pipefail
n=$1
shift
busy=()
for ((k = 0; k < n; k++)); do
  timeout "${LOAD_SECONDS:-3600}" sh -c 'while :; do :; done' &
  busy+=($!)
done
stop() { kill "${busy[@]}" 2>/dev/null; wait "${busy[@]}" 2>/dev/null; }
trap stop EXIT
trap 'exit 130' INT TERM
echo "with-load: $n busy processes beside: $*"
"$@"
