#!/usr/bin/env bash
# Figures of the MPI systems on this machine:
#   1. per-task overhead: empty kernel, elapsed x cores / tasks, best of REPS runs, at each of
#      WIDTHS (2: one column per rank, every step waits for one message; 64: 32 per rank);
#   2. the floor: a bare MPI exchange loop (mpi_exchange_floor.c) per implementation;
#   3. METG(50%) through the harness (when python/taskbench exists), compute_bound, the first of
#      WIDTHS (nearest: at least 5).
# On stencil_1d and nearest radix 5 (at widths of 5 or more: the core refuses a radix above the
# width), STEPS timesteps, RANKS ranks.
# Usage: bench/mpi_systems.sh [build-dir]   (env: REPS=10 STEPS=1000 WIDTHS="2 64" RANKS=2 METG=1)
# Busy-polling ranks are sensitive to anything else running: on a shared machine take the
# figures as noisy upper bounds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
reps=${REPS:-10} steps=${STEPS:-1000} widths=${WIDTHS:-"2 64"} ranks=${RANKS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The per-implementation launchers (Debian names first; the plain names may be either MPI).
launcher() {
  case $1 in
    *_mpich) command -v mpirun.mpich || command -v mpiexec.hydra ;;
    *) command -v mpirun.openmpi ;;
  esac
}

# Best (smallest) elapsed seconds of $reps runs of: system flags...
best_elapsed() {
  local system=$1; shift
  local mpirun; mpirun=$(launcher "$system") || return 1
  for _ in $(seq "$reps"); do
    "$mpirun" -np "$ranks" "$build/bin/$system" "$@" -expect-ranks "$ranks" |
      awk '/^Elapsed Time/ {print $3}'
  done | sort -g | head -n 1
}

patterns=("stencil_1d" "nearest -radix 5")
systems=()
for s in mpi_p2p mpi_bulk mpi_openmp mpi_p2p_mpich mpi_bulk_mpich mpi_openmp_mpich; do
  [[ -x $build/bin/$s ]] && launcher "$s" >/dev/null && systems+=("$s")
done

echo "# per-task overhead, empty kernel: best of $reps, $steps steps, $ranks ranks x 1 thread"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %-18s %6s %12s %12s\n' system pattern width elapsed_s us_per_task
for width in $widths; do
  for s in "${systems[@]}"; do
    for p in "${patterns[@]}"; do
      [[ $p == nearest* && $width -lt 5 ]] && continue
      extra=()
      [[ $s == mpi_openmp* ]] && extra=(-worker 1)
      # shellcheck disable=SC2086
      e=$(best_elapsed "$s" -steps "$steps" -width "$width" -type $p -kernel empty "${extra[@]}")
      awk -v s="$s" -v p="$p" -v w="$width" -v e="$e" -v c="$ranks" -v t=$((steps * width)) \
        'BEGIN {printf "%-18s %-18s %6d %12.4e %12.3f\n", s, p, w, e, e * c / t * 1e6}'
    done
  done
done

# The floor: the same calls with no task and no plan (mpi_exchange_floor.c), per implementation.
echo
echo "# floor, bare MPI between 2 ranks, 16 bytes, best of $reps x $steps steps (mpi_exchange_floor.c):"
echo "# exchange = MPI_Isend + MPI_Irecv + MPI_Waitall per step, one-way = half a ping-pong"
printf '%-18s %12s %12s\n' mpi exchange_us one_way_us
for flavor in openmpi mpich; do
  cc=$(command -v "mpicc.$flavor") || continue
  mpirun=$(launcher "x_$flavor") || continue
  "$cc" -O2 "$root/bench/mpi_exchange_floor.c" -o "$work/floor_$flavor"
  read -r exchange one_way < <("$mpirun" -np 2 "$work/floor_$flavor" "$steps" "$reps")
  printf '%-18s %12s %12s\n' "$flavor" "$exchange" "$one_way"
done

[[ ${METG:-1} == 1 && -d $root/python/taskbench ]] || exit 0
# The harness launches Open MPI builds with the plain `mpirun` and MPICH builds with `mpiexec`;
# on Debian both names point at one implementation, so give it a PATH where each is the right one.
# (Scripts, not symlinks: Hydra looks for its proxy beside the path it was started as.)
mkdir "$work/shim"
for pair in "mpirun x_openmpi" "mpiexec x_mpich"; do
  read -r name flavor <<<"$pair"
  target=$(launcher "$flavor") || continue
  printf '#!/bin/sh\nexec %q "$@"\n' "$target" >"$work/shim/$name"
  chmod +x "$work/shim/$name"
done
export PATH="$work/shim:$PATH"
echo
echo "# METG(50%), compute_bound, via the harness (taskbench metg), $ranks ranks"
db=$work/metg.db
for p in "${patterns[@]}"; do
  read -r name radix <<<"$p"
  width=${widths%% *}
  args=(--pattern "$name" --kernel compute_bound --steps "$steps" --ranks "$ranks")
  [[ -n ${radix:-} ]] && args+=(--radix "${p##* }") && width=$((width > 5 ? width : 5))
  args+=(--width "$width")
  (cd "$root" && PYTHONPATH=python python3 -m taskbench metg -q --db "$db" \
     --build-dir "$build" "${args[@]}" "${systems[@]}")
done
