#!/usr/bin/env bash
# METG(50%) of native beside the original Task Bench's own ports (github.com/StanfordLegion/
# task-bench), at 2 cores: one `taskbench metg` campaign per graph, so native, mpi_p2p,
# openmp_task and the originals given (as --external systems) are swept interleaved in one
# window; then the ratio native / best original port, with its range from the two 95% intervals
# in that campaign (its own repetitions': the machine's drift between campaigns moves both sides)
# (native's low / best's high .. native's high / best's low). Issue 50's goal: at most 0.5.
# The no-runtime floor is swept in the same campaigns as a system of its own (`no_runtime`:
# build/bench/bench_exchange_floor -system, a block of columns per pinned thread, flags for the
# exchange, the core's validated execute_point, no runtime): floor / best original says how
# far below the original any runtime could go on this machine, native / floor what native
# costs above it.
# Graphs (compute_bound, --steps 1000 by default): stencil_1d width 2, nearest radix 3 width 3
# (the narrowest our systems accept: radix at most width) and width 4; GRAPHS overrides, e.g.
# GRAPHS="stencil_1d:2 nearest:4:3" (pattern:width[:radix]); SYSTEMS, our systems swept beside
# them (default "native mpi_p2p openmp_task").
# The originals: build them from a checkout of that repository with their own Makefiles, in
# this order: core/Makefile (libcore_s.a), then mpi/Makefile (nonblock, bulk_synchronous; with
# Open MPI's mpicxx) and openmp/Makefile (main; g++ -fopenmp), each by `make` in its folder.
# The MPI ports run as `mpirun -np 2 --oversubscribe` (as mpi_p2p is), the OpenMP port with
# `-worker 2 -field 2`: the paper's -field (experiments/cori_metg_compute/metg_openmp.sh) and our
# core's default, where the original's own default is a field per timestep (no reuse, so none of
# the write-after-read edges that openmp_task, the paper's algorithm, waits for). Stored in $TASKBENCH_DB (default versus-original.db), campaigns vs-orig-*.
# Usage: bench/versus_original.sh [--mpi-nonblock PATH] [--mpi-bulk PATH] [--openmp PATH]
#          [taskbench metg options, e.g. --steps 200 --reps 5]      (~25 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export TASKBENCH_DB=${TASKBENCH_DB:-versus-original.db}
mpirun=(mpirun -np 2 --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)  # Open MPI refuses root unless told
externals=() rest=()
while [ $# -gt 0 ]; do
  case $1 in
    --mpi-nonblock) externals+=(--external "orig_mpi_nonblock=2:${mpirun[*]} $(printf %q "$2")"); shift 2 ;;
    --mpi-bulk) externals+=(--external "orig_mpi_bulk=2:${mpirun[*]} $(printf %q "$2")"); shift 2 ;;
    --openmp) externals+=(--external "orig_openmp=2:$(printf %q "$2") -worker 2 -field 2"); shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
[ ${#externals[@]} -gt 0 ] || { echo "give at least one of --mpi-nonblock, --mpi-bulk, --openmp" >&2; exit 2; }
floor=build/bench/bench_exchange_floor
[ -x "$floor" ] || { echo "$floor is not built (cmake --build build)" >&2; exit 2; }
externals+=(--external "no_runtime=2:$floor -system -workers 2")
stamp=$(date +%Y%m%d-%H%M%S)
out=$(mktemp -d)
for graph in ${GRAPHS:-stencil_1d:2 nearest:3:3 nearest:4:3}; do
  IFS=: read -r pattern width radix <<<"$graph"
  name=vs-orig-$pattern${radix:+-r$radix}-w$width-$stamp
  echo "== $name (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  .venv/bin/taskbench metg ${SYSTEMS:-native mpi_p2p openmp_task} "${externals[@]}" -q --pattern "$pattern" \
    --width "$width" ${radix:+--radix "$radix"} --kernel compute_bound --campaign "$name" \
    "${rest[@]}" | awk -v g="$pattern${radix:+ r$radix} w$width" 'NR > 1 { print g "\t" $0 }' >>"$out/all.tsv" ||
    echo "$name: taskbench metg exited $?" >&2
done
# graph, system, METG, interval, reps; then per graph native / best original.
awk -F'\t' '
  function us(x) { return x == "" ? "-" : sprintf("%.3g", x * 1e6) }
  function ratio(what, a, al, ah, b, bl, bh) {  # a / b with the range from the two intervals
    lo = (al != "" && bh != "") ? sprintf("%.2f", al / bh) : "?"
    hi = (ah != "" && bl != "") ? sprintf("%.2f", ah / bl) : "?"
    return sprintf("%s = %.2f  [%s, %s]", what, a / b, lo, hi) }
  { printf "%-16s %-18s METG %8s us  [%s, %s] in this campaign, [%s, %s] for a rerun  reps %s  %s\n", $1, $2,
      us($4), us($13), us($14), us($5), us($6), $8, substr($15, 1, 100)
    if ($2 == "native") { n[$1] = $4; nl[$1] = $13; nh[$1] = $14 }
    if ($2 == "no_runtime") { f[$1] = $4; fl[$1] = $13; fh[$1] = $14 }
    if ($2 ~ /^orig_/ && $4 != "" && (!($1 in b) || $4 < b[$1])) { b[$1] = $4; bl[$1] = $13; bh[$1] = $14; bn[$1] = $2 }
    if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END { print ""
    for (i = 1; i <= k; i++) { g = order[i]
      if (n[g] == "" || !(g in b)) { printf "%-16s native / best original: no METG for one side\n", g; continue }
      r = n[g] / b[g]
      printf "%-16s %s  goal <= 0.5: %s\n", g, ratio("native / " bn[g], n[g], nl[g], nh[g], b[g], bl[g], bh[g]),
        r <= 0.5 ? "met" : "not met"
      if (f[g] == "") { printf "%-16s no_runtime: no METG\n", g; continue }
      printf "%-16s %s  (how low any runtime could go here)\n", g,
        ratio("no_runtime / " bn[g], f[g], fl[g], fh[g], b[g], bl[g], bh[g])
      printf "%-16s %s  (what native costs above no runtime)\n", g,
        ratio("native / no_runtime", n[g], nl[g], nh[g], f[g], fl[g], fh[g]) } }
' "$out/all.tsv"
rm -rf "$out"
