"""Parsl's worker pools the `parsl_pools` launcher (launch/parsl_pools.py) starts on every host of
a cluster description (on this machine alone the system starts its own interchange and pool),
started as a user starts one by hand on each node (process_worker_pool; Parsl's providers start
them from the driver's process, which a run across the hosts' start methods cannot use).

Its starter, build/libexec/taskbench/parsl_pools -hosts FILE -workers N -- SYSTEM [FLAGS...]
(main() here), starts the system on the description's first host with its interchange listening
on that host's address (-listen ADDRESS:0), then, once the interchange has picked its port, one
pool per host through each host's start method, with N workers in all (the hosts in turn, each
up to its cores; default: one per core of each). It ends with the system's status; a pool that
dies during the run ends it with status 1, naming its host. Pools and system are stopped by pid
(by process group: a pool's workers are its children) afterwards."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from taskbench.clusters.attached import die_like, end_on_signals, starter_arguments, supervise
from taskbench.clusters.base import POLL_SECONDS, EngineCluster, on_host
from taskbench.hosts.description import Cluster, Host
from taskbench.process import leftovers, tied

START_SECONDS = 120.0  # the driver imports Parsl and starts its interchange on a loaded machine
SETTLE_SECONDS = 2.0  # a pool's death makes the system fail a moment later: its reason is the pool's


def workers_per_host(cluster: Cluster, workers: int) -> list[tuple[Host, int]]:
    """The hosts in turn, each up to its cores, then round again; hosts left with none dropped."""
    slots = cluster.slots()
    counts = {h.name: 0 for h in cluster.hosts}
    for k in range(workers):
        counts[slots[k % len(slots)].name] += 1
    return [(h, counts[h.name]) for h in cluster.hosts if counts[h.name]]


def pool_command(address: str, port: int, folder: Path, block: int, workers: int) -> list[str]:
    # The heartbeats of the system's executor: a pool whose interchange went ends within 10 s.
    return [sys.executable, "-m", "parsl.executors.high_throughput.process_worker_pool", "-a", address,
            "--port", str(port), "--cert_dir", str(folder / "certificates"), "--max_workers_per_node",
            str(workers), "-c", "1", "-m", "None", "-p", "0", "--poll", "10", "--hb_period", "1",
            "--hb_threshold", "10", "--drain_period", "None", "--block_id", str(block),
            "--logdir", str(folder / f"pool-{block}"), "--cpu-affinity", "none", "--mpi-launcher", "mpiexec"]


class ParslPools(EngineCluster):
    """The worker pools, a role per host (their interchange is the system's). Each pool runs in a
    session of its own, with its workers: one killpg ends them all."""
    ENGINE = "Parsl"
    GROUPS = True

    def describe(self, role: str) -> str:
        return f"the Parsl worker pool on host {role}"

    def start_pools(self, workers: int, port: int) -> None:
        first = self.hosts.hosts[0]
        for block, (host, count) in enumerate(workers_per_host(self.hosts, workers)):
            self.spawn(host.name, pool_command(first.address, port, self.folder, block, count), host, read=False)


def wait_for_port(folder: Path, driver: subprocess.Popen) -> int | None:
    """The interchange's port once the system wrote it; None if the system ended first."""
    deadline = time.monotonic() + START_SECONDS
    while driver.poll() is None and time.monotonic() < deadline:
        try:
            return int((folder / "worker_port").read_text())
        except (OSError, ValueError):
            time.sleep(POLL_SECONDS)
    if driver.poll() is None:
        sys.stderr.write(f"taskbench: the Parsl interchange did not start within {START_SECONDS:g} s\n")
    return None


# ---- the starter ----

def main(argv: list[str]) -> int:
    args = starter_arguments(argv, "parsl_pools", "runs the system and Parsl's worker pools across hosts",
                             "the cluster description", hosts_required=True, workers="worker processes in all")
    first = args.cluster.hosts[0]
    end_on_signals()
    # The interchange's keys and port, and the pools' logs: in the pools' folder, beside the
    # description, on the file system the hosts share.
    with ParslPools(args.cluster) as pools:
        driver = tied.popen(on_host(first, [*args.program, "-listen", f"{first.address}:0", "-keys", str(pools.folder),
                                            "-worker", str(args.workers)], {}), signal.SIGKILL, start_new_session=True)
        try:
            port = wait_for_port(pools.folder, driver)
            if port is None:
                status = driver.returncode or 1
            else:
                pools.start_pools(args.workers, port)
                status = supervise(pools, driver, SETTLE_SECONDS, group=True)
        finally:
            leftovers.stop_started([driver], group=True)
    die_like(status)
    return status
