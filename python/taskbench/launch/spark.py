"""The `spark` launcher: a Spark system on a standalone cluster the harness starts for the run.

build/bin/spark_cluster (spark_cluster_main.py) starts a master and a worker of --workers N
cores (default: one per core) on 127.0.0.1, runs the system attached to it, and stops the
cluster after it (its executors and their Python workers too). With --hosts, the master runs on
the first host and a worker on every host (each offering that host's cores), and the driver
here, which must be the first host; --workers then caps the cores the run takes (default: all
the hosts')."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.plan import LaunchOptions, LaunchPlan

ACROSS_HOSTS = True  # --hosts: the master on the first host, a worker on every host

LAUNCHER = ClusterLauncher("spark_cluster")
why_not_here = LAUNCHER.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    cluster = options.cluster
    if cluster is not None:
        cores = options.ranks or system.ranks or cluster.cores
    else:
        cores = LAUNCHER.workers(system, options)
    if cores < 1:
        raise UserError(f"--workers {cores}: must be at least 1", EXIT_USAGE)
    hosts = ["-hosts", str(cluster.path)] if cluster is not None else []
    # One driver that takes N cores, as the system reports it (wherever its executors are).
    return LAUNCHER.plan(system, flags, options, ["-workers", str(cores), *hosts], 1, cores)
