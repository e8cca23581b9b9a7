"""The Open MPI systems across the 3 hosts of the test cluster, started by the harness from
the first host with the cluster description, as a user does (docs/clusters.md)."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess

import pytest

from conftest import REPO

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


def test_the_hosts_are_checked(cluster):
    got = cluster.run("taskbench", "-q", "hosts", "--hosts", str(cluster.hosts_file))
    assert got.returncode == 0, got.stdout + got.stderr
    rows = [line.split("\t") for line in got.stdout.splitlines()[1:] if line.startswith(cluster.prefix)]
    assert [(r[0], r[1], r[-1]) for r in rows] == [(f"{cluster.prefix}-h{k}", f"198.18.0.{k}", "yes") for k in (1, 2, 3)]
    assert "mpi_p2p" in got.stdout


@pytest.mark.parametrize("system", ["mpi_p2p", "mpi_bulk", "mpi_openmp", "starpu_mpi"])
def test_a_run_spreads_over_every_host(cluster, system, tmp_path):
    db = tmp_path / "runs.db"
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(db),
                      "--timeout", "60", system, *GRAPHS)
    assert got.returncode == 0, got.stdout + got.stderr
    run = stored_run(db)
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPHS)
    assert run["nodes"] == 3 and run["ranks"] == 3
    hosts = json.loads(run["report"])["system_report"]["hosts"]
    assert hosts == {f"{cluster.prefix}-h{k}": {"ranks": 1, "tasks": 80} for k in (1, 2, 3)}
    assert "3 hosts (ranks / tasks)" in got.stdout


def test_mpi4py_futures_runs_across_the_hosts(cluster, tmp_path):
    # Its ranks do not report their host yet: the totals, and the hosts it was given, only.
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "runs.db"),
                      "--timeout", "60", "mpi4py_futures", *GRAPHS)
    assert got.returncode == 0, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPHS) and run["nodes"] == 3


def test_a_corrupted_input_on_another_host_is_caught(cluster, tmp_path):
    # Point 5 of 6 runs on the third host (ranks take 2 columns each, one rank a host).
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db",
                      str(tmp_path / "runs.db"), "--timeout", "60", "mpi_p2p", *GRAPHS[:6],
                      env={"TASKBENCH_FAULT": "corrupt:0,4,5"})
    assert got.returncode == 3, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert run["status"] == "validation", run["reason"]
    assert "task (t=5, i=5): input 1: expected the output of (t=4, i=5)" in run["reason"]


def test_a_system_without_a_launch_across_hosts_is_refused(cluster):
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "native", "-steps", "5")
    assert got.returncode == 2
    assert got.stderr.strip() == ("taskbench: --hosts: native is started by the local launcher, which does not "
                                  "run across hosts yet (the mpirun launcher does)")
