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
