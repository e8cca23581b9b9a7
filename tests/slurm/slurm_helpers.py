"""What the Slurm tests share: the repository, the graphs, and what is left on the hosts."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path

from taskbench.process.leftovers import describe

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "test-cluster.sh"
GRAPH = ["-steps", "20", "-width", "4", "-type", "stencil_1d"]


def serial_totals(flags: list[str]) -> tuple[int, int]:
    out = subprocess.run([str(REPO / "build" / "bin" / "serial"), *flags], capture_output=True, text=True,
                         timeout=60).stdout
    return int(re.search(r"Total Tasks (\d+)", out)[1]), int(re.search(r"Total Dependencies (\d+)", out)[1])


def runs(db) -> list[dict]:
    with sqlite3.connect(db) as c:
        c.row_factory = sqlite3.Row
        return [dict(r) for r in c.execute("SELECT * FROM runs ORDER BY id")]


def hosts_of(run: dict) -> dict:
    return json.loads(run["report"])["system_report"]["hosts"]


def left_on_hosts(slurm, within: float = 10.0) -> list[str]:
    """'HOST: PID (COMMAND)' of every live process on a test host that is neither its anchor
    nor a Slurm daemon (waits `within` seconds for those ending)."""
    deadline = time.monotonic() + within
    while True:
        left, keep = [], slurm.daemons()
        for k in range(1, slurm.hosts + 1):
            out = subprocess.run(["ip", "netns", "pids", slurm.name(k)], capture_output=True, text=True).stdout
            left += [f"{slurm.name(k)}: {describe(int(p))}" for p in out.split()
                     if int(p) not in keep and _live(int(p)) and _comm(int(p)) != "slurmscriptd"]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _comm(pid: int) -> str:
    """The process's name ("slurmscriptd": slurmctld's own helper, which slurmctld starts)."""
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


def _live(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def processes_on(slurm, k: int) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", slurm.name(k)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def wait_for_job(slurm, job: str, within: float = 180) -> str:
    """Waits until the job has left the queue; returns its last state as squeue saw it."""
    deadline, state = time.monotonic() + within, ""
    while time.monotonic() < deadline:
        out = slurm.run("squeue", "-h", "-j", job, "-t", "pending,running,configuring,completing", "-o", "%T").stdout.strip()
        if not out:
            return state
        state = out
        time.sleep(0.5)
    raise AssertionError(f"Slurm job {job} still {state} after {within:g} s")
