"""The `dask` launcher: a Dask distributed system on a cluster the harness starts for the run
(clusters/dask.py, through its starter build/libexec/taskbench/dask_cluster): N worker processes
(--workers, default: one per core) of T threads each (--threads-per-rank, default 1); with
--hosts, the scheduler on the first host and the workers on every host."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.common import LaunchOptions, LaunchCommand

ACROSS_HOSTS = True  # --hosts: the scheduler on the first host, workers on every host

LAUNCHER = ClusterLauncher("dask_cluster")
why_not_here = LAUNCHER.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    workers = LAUNCHER.workers(system, options)
    threads = options.threads_per_rank or system.threads_per_rank or 1
    if workers < 1 or threads < 1:
        raise UserError(f"--workers {workers} --threads-per-rank {threads}: both must be at least 1", EXIT_USAGE)
    return LAUNCHER.command(system, flags, options, ["-workers", str(workers), "-threads", str(threads)],
                         workers, threads)
