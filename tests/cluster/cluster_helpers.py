"""What the multi-host tests share: the graphs they run and the figures they check against."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path

from taskbench.process.leftovers import describe

# Here, not in conftest.py: a test module that imports `conftest` may get another folder's.
REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "test-cluster.sh"

GRAPHS = ["-steps", "20", "-width", "6", "-type", "stencil_1d", "-and",
          "-steps", "20", "-width", "6", "-type", "nearest", "-radix", "3"]


def serial_totals(flags: list[str]) -> tuple[int, int]:
    out = subprocess.run([str(REPO / "build" / "bin" / "serial"), *flags], capture_output=True, text=True,
                         timeout=60).stdout
    return (int(re.search(r"Total Tasks (\d+)", out)[1]), int(re.search(r"Total Dependencies (\d+)", out)[1]))


def stored_run(db) -> dict:
    with sqlite3.connect(db) as c:
        c.row_factory = sqlite3.Row
        return dict(c.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone())


def left_on_hosts(cluster, within: float = 5.0) -> list[str]:
    """'HOST: PID (COMMAND)' of every live process still on a test host after a run, but the one
    that holds its namespaces (waits `within` seconds for those ending; an ended one that init has
    yet to reap holds nothing)."""
    deadline = time.monotonic() + within
    while True:
        left = []
        for k in (1, 2, 3):
            anchor = int((cluster.dir / f"h{k}.pid").read_text())
            out = subprocess.run(["ip", "netns", "pids", f"{cluster.prefix}-h{k}"], capture_output=True,
                                 text=True).stdout
            left += [f"{cluster.prefix}-h{k}: {describe(int(p))}" for p in out.split()
                     if int(p) != anchor and _live(int(p))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _live(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:  # ended meanwhile
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def run_across(cluster, system: str, db, graphs: list[str], env: dict | None = None, timeout: float = 120):
    """`taskbench run --hosts` of the system on the cluster, from its first host."""
    return cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(db), "--timeout",
                       str(timeout), system, *graphs, env=env, timeout=timeout + 60)


def check_work_on_every_host(cluster, got, db, graphs: list[str] = GRAPHS) -> dict:
    """A run of `graphs` that ended well: serial's totals, work on each of the 3 hosts (the
    report's per-host counts, which add up), nothing left on any host. Returns the hosts' counts."""
    assert got.returncode == 0, got.stdout + got.stderr
    run = stored_run(db)
    assert (run["tasks"], run["dependencies"]) == serial_totals(graphs)
    assert "outlived" not in (run["reason"] or ""), run["reason"]  # the launcher stopped all it started
    hosts = json.loads(run["report"])["system_report"]["hosts"]
    assert sorted(hosts) == [f"{cluster.prefix}-h{k}" for k in (1, 2, 3)], hosts
    assert all(h.get("workers", h.get("ranks", 0)) >= 1 and h["tasks"] > 0 for h in hosts.values()), hosts
    assert sum(h["tasks"] for h in hosts.values()) == run["tasks"]
    assert left_on_hosts(cluster) == []
    return hosts


def check_corrupted_input_caught(cluster, system: str, db, timeout: float = 120) -> None:
    """The output of (t=4, i=5), on the third host, corrupted: the run fails validation with the
    core's line, as on one host, and leaves nothing behind."""
    got = run_across(cluster, system, db, GRAPHS[:6], env={"TASKBENCH_FAULT": "corrupt:0,4,5"}, timeout=timeout)
    assert got.returncode == 3, got.stdout + got.stderr
    run = stored_run(db)
    assert run["status"] == "validation", run["reason"]
    assert "task (t=5, i=" in run["reason"] and "expected the output of (t=4, i=5)" in run["reason"], run["reason"]
    assert left_on_hosts(cluster) == []
