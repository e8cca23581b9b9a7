"""The `spark` launcher: a Spark system on a standalone cluster the harness starts for the run
(clusters/spark.py, through its starter build/libexec/taskbench/spark_cluster): a master and a
worker of N cores (--workers, default: one per core); with --hosts, the master on the first host
and a worker on every host, the driver here, which must be the first host."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.common import LaunchOptions, LaunchCommand

ACROSS_HOSTS = True  # --hosts: the master on the first host, a worker on every host

LAUNCHER = ClusterLauncher("spark_cluster")
why_not_here = LAUNCHER.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    cores = LAUNCHER.workers(system, options)
    if cores < 1:
        raise UserError(f"--workers {cores}: must be at least 1", EXIT_USAGE)
    # One driver that takes N cores, as the system reports it (wherever its executors are).
    return LAUNCHER.command(system, flags, options, ["-workers", str(cores)], 1, cores)
