"""Engines across the 3 hosts of the test cluster, each through its own multi-node mechanism,
started by the harness from the first host with the cluster description (docs/clusters.md)."""
from __future__ import annotations

import json

from cluster_helpers import GRAPHS, serial_totals, stored_run


def test_dask_runs_its_workers_on_every_host(cluster, tmp_path):
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "runs.db"),
                      "--timeout", "120", "dask_distributed", *GRAPHS, timeout=180)
    assert got.returncode == 0, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPHS)
    hosts = json.loads(run["report"])["system_report"]["hosts"]
    assert sorted(hosts) == [f"{cluster.prefix}-h{k}" for k in (1, 2, 3)]
    assert all(h["workers"] == 1 and h["tasks"] > 0 for h in hosts.values()), hosts
    assert sum(h["tasks"] for h in hosts.values()) == run["tasks"]


def test_dask_catches_a_corrupted_input_across_hosts(cluster, tmp_path):
    got = cluster.run("taskbench", "run", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "runs.db"),
                      "--timeout", "120", "dask_distributed", *GRAPHS[:6],
                      env={"TASKBENCH_FAULT": "corrupt:0,4,5"}, timeout=180)
    assert got.returncode == 3, got.stdout + got.stderr
    run = stored_run(tmp_path / "runs.db")
    assert run["status"] == "validation", run["reason"]
    assert "task (t=5, i=" in run["reason"] and "expected the output of (t=4, i=5)" in run["reason"], run["reason"]


def test_a_metg_sweep_across_hosts_shows_each_hosts_work(cluster, tmp_path):
    got = cluster.run("taskbench", "metg", "--hosts", str(cluster.hosts_file), "--db", str(tmp_path / "m.db"),
                      "--steps", "20", "--reps", "1", "--tries", "1", "--refine", "1", "--timeout", "120",
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
