"""A run across the test hosts listens on loopback or on its hosts' own addresses only: each
multi-host system's processes are polled for listening sockets throughout a `taskbench run
--hosts` (listening_across.py says how, and which engines may bind every interface of a host).
Spark is checked within its run on every host, in test_pyspark_across_hosts.py."""
from __future__ import annotations

import os

import pytest

from listening_across import check_listening, watched_run
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout

# About 80 ms of work per rank: long enough for every host's processes to be seen listening (at
# -iter 20000, 8 ms, CI once saw MPICH's run end before the watcher found it on one host).
SHORT = ["-steps", "400", "-width", "6", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "200000"]
SYSTEMS = ["mpi_p2p", "mpi_p2p_mpich", "dask_distributed", "parsl", "charm4py", "ray"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_run_across_hosts_listens_only_on_its_hosts_addresses(cluster, system, tmp_path):
    found = Registry(find_layout()).get(system)
    if not found.available:
        pytest.skip(f"{system} is not available: {found.reason}")
    watched = watched_run(cluster, ["taskbench", "-q", "--db", str(tmp_path / "runs.db"), "run", "--hosts",
                                    str(cluster.hosts_file), "--timeout", "180", system, *SHORT])
    assert watched.returncode == 0, watched.stdout + watched.stderr
    check_listening(cluster, system, watched)
