#!/usr/bin/env bash
# Soak of the store: a study killed with SIGKILL at random moments and resumed each time, against
# the same plan run once without interruption. A benchmark, not a test: it prints what it saw and
# exits 1 only when the stored runs differ (a run lost, stored twice, or stored half-done) or a
# process of a killed harness outlived it.
#
#   bench/soak_resume.sh [KILLS]      (default 20)
#   env: STUDY=imbalance SYSTEMS=<the preset's> REPS=<the preset's> SEED=<random> KEEP=<folder for the stores>
#
# The default is the imbalance preset whole: 320 runs of 8 systems (mpi_p2p among them), about a
# minute here. The study runs with --retries 0, so that its plan is fixed (extra tries depend on
# the machine's load). Every process of a harness carries SOAK_PROBE=<marker> in its environment; after a kill,
# any that still does is waited for, then reported and killed by its pid.
set -uo pipefail
cd "$(dirname "$0")/.."

kills=${1:-20}
study=${STUDY:-imbalance}
seed=${SEED:-$RANDOM}
work=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/taskbench-soak-XXXXXX")}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
taskbench=.venv/bin/taskbench
args=(study "$study" --retries 0)
[ -n "${SYSTEMS:-}" ] && args+=(--systems "$SYSTEMS")
[ -n "${REPS:-}" ] && args+=(--reps "$REPS")
RANDOM=$seed

# The processes, other than this script's own, whose environment holds the marker.
marked() {
  local file pid
  for file in /proc/[0-9]*/environ; do
    pid=${file#/proc/}
    pid=${pid%/environ}
    [ "$pid" != "$$" ] && grep -qz "^SOAK_PROBE=$1$" "$file" 2>/dev/null && echo "$pid"
  done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

stored() {  # runs stored in campaign $2 of store $1
  .venv/bin/python -c 'import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(con.execute("SELECT count(*) FROM runs WHERE campaign=?", (sys.argv[2],)).fetchone()[0])' "$1" "$2" 2>/dev/null || echo 0
}

exists() {  # whether store $1 holds campaign $2 (a kill may land before the harness made it)
  .venv/bin/python -c 'import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
sys.exit(0 if con.execute("SELECT 1 FROM campaigns WHERE name=?", (sys.argv[2],)).fetchone() else 1)' "$1" "$2" 2>/dev/null
}

echo "soak: taskbench ${args[*]}, $kills kills, seed $seed, stores in $work"
start=$(now_ms)
SOAK_PROBE=reference "$taskbench" --db "$work/reference.db" -q "${args[@]}" --campaign reference >/dev/null ||
  { echo "soak: the uninterrupted run failed"; exit 1; }
reference_ms=$(($(now_ms) - start))
echo "uninterrupted: $(stored "$work/reference.db" reference) runs in $(seconds "$reference_ms") s"

# Each kill lands after a uniform random wait of up to twice the run's share of the whole: on
# average the kills leave about half of it for the last, uninterrupted resume.
share_ms=$((2 * reference_ms / kills))
leftovers=0
finished_early=0
start=$(now_ms)
for ((k = 1; k <= kills; k++)); do
  resume=(--campaign soak)
  exists "$work/soak.db" soak && resume=(--resume soak)
  marker="soak-$k-$seed"
  before=$(stored "$work/soak.db" soak)
  SOAK_PROBE=$marker "$taskbench" --db "$work/soak.db" -q "${args[@]}" "${resume[@]}" >/dev/null 2>"$work/stderr" &
  pid=$!
  wait_ms=$((RANDOM * RANDOM % (share_ms + 1)))
  sleep "$(seconds "$wait_ms")"
  if ! kill -KILL "$pid" 2>/dev/null; then
    wait "$pid" || { echo "soak: the harness failed before kill $k:"; cat "$work/stderr"; exit 1; }
    echo "kill $k: the study finished before it ($(stored "$work/soak.db" soak) runs)"
    finished_early=1
    break
  fi
  wait "$pid" 2>/dev/null
  # What the harness started dies with it (tied launches): give it a moment, then count.
  for _ in $(seq 50); do [ -z "$(marked "$marker")" ] && break; sleep 0.1; done
  left=$(marked "$marker")
  if [ -n "$left" ]; then
    leftovers=$((leftovers + $(wc -w <<<"$left")))
    echo "kill $k: still running 5 s after the harness's SIGKILL: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo "(pid $p)"; done)"
    kill -KILL $left 2>/dev/null
  fi
  echo "kill $k after ${wait_ms} ms: $before -> $(stored "$work/soak.db" soak) runs stored"
done
if [ "$finished_early" = 0 ]; then
  resume=(--campaign soak)
  exists "$work/soak.db" soak && resume=(--resume soak)
  SOAK_PROBE=final "$taskbench" --db "$work/soak.db" -q "${args[@]}" "${resume[@]}" >/dev/null 2>"$work/stderr" ||
    { echo "soak: the last resume failed:"; cat "$work/stderr"; exit 1; }
fi
soak_s=$(seconds $(($(now_ms) - start)))

.venv/bin/python - "$work/reference.db" "$work/soak.db" "$soak_s" "$leftovers" <<'EOF'
import sqlite3
import sys

reference_db, soak_db, seconds, leftovers = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])


def read(path, campaign):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    status = con.execute("SELECT status FROM campaigns WHERE name=?", (campaign,)).fetchone()["status"]
    runs = [dict(r) for r in con.execute("SELECT * FROM runs WHERE campaign=?", (campaign,))]
    return status, runs


def partial(run):
    """A run stored without what a finished run always has."""
    missing = [c for c in ("status", "wall_seconds", "argv", "system") if run[c] in (None, "")]
    if run["status"] == "ok":
        missing += [c for c in ("elapsed_seconds", "tasks", "report") if run[c] is None]
    return missing


problems = []
ref_status, ref = read(reference_db, "reference")
soak_status, soak = read(soak_db, "soak")
ref_keys, soak_keys = [r["key"] for r in ref], [r["key"] for r in soak]
if soak_status != "done" or ref_status != "done":
    problems.append(f"campaign status: reference {ref_status}, soak {soak_status}")
twice = sorted({k for k in soak_keys if soak_keys.count(k) > 1})
if twice:
    problems.append(f"stored twice: {twice[:5]}")
if set(ref_keys) != set(soak_keys):
    problems.append(f"runs only in the reference: {sorted(set(ref_keys) - set(soak_keys))[:5]}; "
                    f"only in the soak: {sorted(set(soak_keys) - set(ref_keys))[:5]}")
half = {r["key"]: partial(r) for r in soak if partial(r)}
if half:
    problems.append(f"stored half-done: {list(half.items())[:5]}")
failed = [f"{r['key']}: {r['status']} {r['reason']}" for r in soak if r["status"] != "ok"]
if failed:
    problems.append(f"failed runs in the soak: {failed[:5]}")
if leftovers:
    problems.append(f"{leftovers} processes outlived their killed harness")
print(f"soak: {len(soak)} runs stored ({len(set(soak_keys))} distinct keys), the uninterrupted run "
      f"{len(ref)}; {len(twice)} stored twice, {len(half)} half-done, {len(failed)} failed, {leftovers} "
      f"leftover processes; {seconds:.1f} s with the kills and resumes")
for line in problems:
    print(f"soak: PROBLEM: {line}")
print("soak: " + ("the stored runs DIFFER" if problems else "same runs as the uninterrupted run"))
sys.exit(1 if problems else 0)
EOF
