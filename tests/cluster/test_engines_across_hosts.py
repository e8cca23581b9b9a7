"""Engines across the 3 hosts of the test cluster, each through its own multi-node mechanism,
started by the harness from the first host with the cluster description (docs/clusters.md)."""
from __future__ import annotations

import json
import re
import sqlite3

import pytest

from cluster_helpers import (GRAPHS, check_corrupted_input_caught, check_work_on_every_host, left_on_hosts,
                             run_across, stored_run)
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout

# Each through its own multi-node mechanism (docs/clusters.md): Dask's scheduler and workers,
# Ray's head and nodes, Parsl's interchange and worker pools, charmrun's node list. Spark, a large
# engine, is test_pyspark_across_hosts.py's.
ENGINES = ["dask_distributed", "ray", "ray_compiled", "parsl", "charm4py"]


@pytest.mark.parametrize("system", ENGINES)
def test_an_engine_runs_its_work_on_every_host(cluster, system, tmp_path):
    got = run_across(cluster, system, tmp_path / "runs.db", GRAPHS)
    hosts = check_work_on_every_host(cluster, got, tmp_path / "runs.db")
    if system in ("dask_distributed", "parsl", "charm4py"):  # a worker per core, one core a host
        assert all(h["workers"] == 1 for h in hosts.values()), hosts


@pytest.mark.parametrize("system", ["dask_distributed", "ray", "parsl", "charm4py"])
def test_an_engine_catches_a_corrupted_input_on_another_host(cluster, system, tmp_path):
    check_corrupted_input_caught(cluster, system, tmp_path / "runs.db")


@pytest.mark.parametrize("system", ["dask_distributed", "ray", "parsl", "charm4py"])
def test_an_engine_reports_a_killed_worker_as_on_one_host(cluster, system, tmp_path):
    """The process running task (4, 5) SIGKILLed: the run fails with the words it fails with on
    one host (the registry's killed_worker_reason where the engine reaps its workers, else the
    signal), and nothing is left on any host."""
    got = run_across(cluster, system, tmp_path / "runs.db", GRAPHS[:6], env={"TASKBENCH_FAULT": "kill:0,4,5"})
    run = stored_run(tmp_path / "runs.db")
    expected = Registry(find_layout()).get(system).killed_worker_reason or "killed by SIGKILL"
    assert got.returncode != 0 and run["status"] in ("crashed", "failed"), got.stdout + got.stderr
    assert expected in run["reason"], run["reason"]
    assert left_on_hosts(cluster) == []


def test_a_metg_sweep_across_hosts_shows_each_hosts_work(cluster, tmp_path):
    # Its 100%: the peak of every core of the 3 hosts busy at once, never this machine's.
    peak = cluster.run("taskbench", "peak", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "m.db"),
                       "--reps", "1", "--steps", "20", timeout=120)
    assert peak.returncode == 0, peak.stdout + peak.stderr
    assert f"of the 3 hosts of {cluster.hosts_file}, all busy" in peak.stdout + peak.stderr
    got = cluster.run("taskbench", "metg", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "m.db"),
                      "--steps", "20", "--reps", "1", "--tries", "1", "--refine", "1", "--timeout", "120",
                      "--target-interval", "0",  # across hosts, not the interval: no repetitions added
                      "mpi_p2p", "dask_distributed", timeout=600)
    # 5: a METG the machine's load made unreliable (CI shares its cores): still a complete sweep.
    assert got.returncode in (0, 5), got.stdout + got.stderr
    assert "20 steps x 3 wide, across 3 hosts" in got.stdout + got.stderr
    for system in ("mpi_p2p", "dask_distributed"):
        row = next(line for line in got.stdout.splitlines() if line.startswith(system + "\t"))
        assert row.split("\t")[1] == "3 (3 hosts x 1 x 1)", row
    per_host = next(line for line in (got.stdout + got.stderr).splitlines()
                    if line.startswith("mpi_p2p per host"))
    assert all(f"{cluster.prefix}-h{k} 1/20" in per_host for k in (1, 2, 3)), per_host
    assert "the 3 hosts are the test cluster's" in got.stdout + got.stderr
    # The cluster's stored peak is found (its machine is the 3 hosts); a campaign run on the
    # shared cores may beat it, and the line then names both.
    said = " ".join((got.stdout + got.stderr).split())  # the console may wrap a long line
    assert re.search(r"peak with 3 cores: \S+ \S+, from the (campaign's best run \([^)]*\), above the )?"
                     r"stored `taskbench peak` run of campaign peak-", said), said
    with sqlite3.connect(tmp_path / "m.db") as db:
        (machine_id, machine), = db.execute("SELECT machine_id, machine FROM campaigns WHERE kind='metg'")
    assert machine_id.startswith(f"hosts:{cluster.prefix}-h1|")
    assert [h["hostname"] for h in json.loads(machine)["hosts"]] == [f"{cluster.prefix}-h{k}" for k in (1, 2, 3)]
    assert all(h["cpu_model"] for h in json.loads(machine)["hosts"])
