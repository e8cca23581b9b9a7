"""The MPI systems (Open MPI's and MPICH's builds) across the 3 hosts of the test cluster,
started by the harness from the first host with the cluster description, as a user does
(docs/clusters.md)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from cluster_helpers import GRAPHS, SCRIPT, serial_totals, stored_run

def test_the_hosts_are_checked(cluster):
    got = cluster.run("taskbench", "-q", "hosts", "--hosts", str(cluster.hosts_file))
    assert got.returncode == 0, got.stdout + got.stderr
    rows = [line.split("\t") for line in got.stdout.splitlines()[1:] if line.startswith(cluster.prefix)]
    assert [(r[0], r[1], r[-1]) for r in rows] == [(f"{cluster.prefix}-h{k}", f"198.18.0.{k}", "yes") for k in (1, 2, 3)]
    assert "mpi_p2p" in got.stdout


@pytest.mark.parametrize("system", ["mpi_p2p", "mpi_bulk", "mpi_openmp", "starpu_mpi",
                                    "mpi_p2p_mpich", "mpi_bulk_mpich", "mpi_openmp_mpich"])
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
    assert "3 hosts (processes / tasks)" in got.stdout


def test_mpi4py_futures_runs_its_workers_on_every_host(cluster, tmp_path):
    # A worker per core of each host, and the driver rank on the first beside its worker.
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "runs.db"),
                      "--timeout", "60", "mpi4py_futures", *GRAPHS)
    assert got.returncode == 0, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPHS) and run["nodes"] == 3
    assert run["ranks"] == 4
    hosts = json.loads(run["report"])["system_report"]["hosts"]
    assert sorted(hosts) == [f"{cluster.prefix}-h{k}" for k in (1, 2, 3)]
    assert all(h["workers"] == 1 and h["tasks"] > 0 for h in hosts.values()), hosts
    assert sum(h["tasks"] for h in hosts.values()) == run["tasks"]


@pytest.mark.parametrize("system", ["mpi_p2p", "mpi_p2p_mpich"])
def test_a_corrupted_input_on_another_host_is_caught(cluster, system, tmp_path):
    # Point 5 of 6 runs on the third host (ranks take 2 columns each, one rank a host). Hydra
    # leaves the others waiting: the harness ends the launch after the rank's line.
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db",
                      str(tmp_path / "runs.db"), "--timeout", "60", system, *GRAPHS[:6],
                      env={"TASKBENCH_FAULT": "corrupt:0,4,5"})
    assert got.returncode == 3, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert run["status"] == "validation", run["reason"]
    # Its first reader: the rank runs its tasks of a step in column order (the paper's port).
    assert "task (t=5, i=4): input 2: expected the output of (t=4, i=5)" in run["reason"]


def test_a_system_without_a_launch_across_hosts_is_refused(cluster):
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "native", "-steps", "5")
    assert got.returncode == 2
    assert got.stderr.strip().startswith("taskbench: --hosts: native is started by the local launcher, which runs "
                                         "on this machine only (across hosts: the mpirun, "), got.stderr
    assert "\n" not in got.stderr.strip()


def _processes_on(cluster, host: int) -> list[int]:
    """Every process on test host `host` but the one holding its namespaces."""
    anchor = int((cluster.dir / f"h{host}.pid").read_text())
    out = subprocess.run(["ip", "netns", "pids", f"{cluster.prefix}-h{host}"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split() if int(p) != anchor]


def _running_on(pid: int, name: str) -> bool:
    try:
        return open(f"/proc/{pid}/comm").read().strip() == name
    except OSError:
        return False


def test_a_host_that_dies_mid_run_fails_it_naming_the_host(cluster, tmp_path):
    db = tmp_path / "runs.db"
    argv = [str(SCRIPT), "--dir", str(cluster.dir), "--prefix", cluster.prefix, "run", "taskbench", "run",
            "--hosts", str(cluster.hosts_file), "--db", str(db), "--timeout", "120", "mpi_p2p",
            "-steps", "100000", "-width", "6", "-kernel", "busy_wait", "-iter", "20000"]
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(_running_on(p, "mpi_p2p") for p in _processes_on(cluster, 3)):
            assert run.poll() is None and time.monotonic() < deadline, "the run never reached the third host"
            time.sleep(0.1)
        time.sleep(0.5)  # its ranks are in the graph's loop
        for pid in _processes_on(cluster, 3):
            os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        run.communicate(timeout=60)
        assert time.monotonic() - killed < 20, "the run went on long after its host died"
    finally:
        run.kill()
    stored = stored_run(db)
    assert stored["status"] == "failed", stored["reason"]
    assert stored["reason"].startswith(f"host {cluster.prefix}-h3 (198.18.0.3) stopped answering"), stored["reason"]
    for host in (1, 2, 3):
        left = [p for p in _processes_on(cluster, host) if _running_on(p, "mpi_p2p") or _running_on(p, "orted")]
        assert not left, f"processes of the run left on host {host}: {left}"


def test_a_rank_killed_on_another_host_is_named(cluster, tmp_path):
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "runs.db"),
                      "--timeout", "60", "mpi_p2p", *GRAPHS[:6], env={"TASKBENCH_FAULT": "kill:0,4,5"})
    assert got.returncode == 3, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert run["status"] == "crashed", run["reason"]
    assert run["reason"].startswith("rank 2 killed by SIGKILL"), run["reason"]
    assert "198.18.0.3" in run["reason"] or f"{cluster.prefix}-h3" in run["reason"], run["reason"]
