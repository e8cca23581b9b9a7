#!/usr/bin/env bash
# Instructions per task, load-independent: valgrind --tool=callgrind counts the instructions of
# an empty-kernel stencil_1d run, width 2, at two lengths; (I(long) - I(short)) / (extra tasks)
# removes start-up and what does not grow with the run. Then the functions that grew most (self
# cost, per extra task), for "where the cost goes". One thread by default (-worker 1):
# under valgrind threads take turns, so a second thread's spinning would count instructions
# that depend on valgrind's scheduling, not on the runtime.
# Usage: bench/callgrind_task_cost.sh [--workers N] [--top K] [system ...]
#        (systems: registry names; default tbb_tasks tbb_flow tbb_flow_persistent rust_rayon
#         rust_rayon_dataflow openmp_for native)
set -euo pipefail
cd "$(dirname "$0")/.."
workers=1 top=8
while [ $# -gt 0 ]; do
  case $1 in
    --workers) workers=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    *) break ;;
  esac
done
systems=("$@")
[ ${#systems[@]} -gt 0 ] || systems=(tbb_tasks tbb_flow tbb_flow_persistent rust_rayon rust_rayon_dataflow openmp_for native)
short=200 long=400 width=2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# "env K=V ... valgrind OPTIONS binary args" for a registry entry (the tests' registry reader)
command_of() {
  PYTHONPATH=tests/e2e .venv/bin/python -c '
import shlex, sys
from systems import registry
name, *valgrind = sys.argv[1:]
s = next(s for s in registry() if s.name == name)
print(shlex.join(["env", *(f"{k}={v}" for k, v in s.entry.get("env", {}).items()), *valgrind, *s.command([])]))
' "$@"
}

instructions() {  # total Ir of one run: system, steps, output file
  eval "$(command_of "$1" valgrind --tool=callgrind --callgrind-out-file="$3")" \
    -steps "$2" -width $width -type stencil_1d -kernel empty -worker "$workers" \
    >/dev/null 2>"$3.log" || { cat "$3.log" >&2; return 1; }
  callgrind_annotate "$3" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ { gsub(",", "", $1); print $1 }'
}

# Per function (self cost): (long - short) / extra tasks, the top ones.
top_functions() {
  .venv/bin/python -c '
import re, subprocess, sys
short, long, tasks, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def costs(path):
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path], capture_output=True, text=True).stdout
    out = {}
    for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+(.*)$", text, re.M):
        name = re.sub(r"^(\?\?\?|\S+?\.(c|cc|cpp|h|hpp|S|rs|inc)):", "", m.group(2))  # drop the source file
        name = re.sub(r" \[.*/([^/]+)\]$", r" [\1]", name)
        if "PROGRAM TOTALS" not in name:
            out[name] = out.get(name, 0) + int(m.group(1).replace(",", ""))
    return out
a, b = costs(short), costs(long)
for name, d in sorted(((n, b.get(n, 0) - a.get(n, 0)) for n in set(a) | set(b)), key=lambda x: -x[1])[:top]:
    print(f"    {d / tasks:8.1f}  {name[:110]}")
' "$@"
}

printf '%-22s %12s\n' system instr/task
for s in "${systems[@]}"; do
  a=$(instructions "$s" $short "$out/$s.short")
  b=$(instructions "$s" $long "$out/$s.long")
  tasks=$(((long - short) * width))
  awk -v s="$s" -v a="$a" -v b="$b" -v n=$tasks 'BEGIN { printf "%-22s %12.0f\n", s, (b - a) / n }'
  top_functions "$out/$s.short" "$out/$s.long" $tasks "$top"
done
