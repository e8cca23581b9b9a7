"""The `dask` launcher: a Dask distributed system on a cluster the harness starts for the run.

build/bin/dask_cluster (dask_cluster_main.py) starts a scheduler and --workers N worker
processes on 127.0.0.1 (default: one per core), each with --threads-per-rank threads (default
1), runs the system attached to them, and stops them after it. With --hosts, the scheduler runs
on the first host and the workers on every host (default: one per core of each). Every process of the launch
carries the run's marker, so a timeout or the harness's death leaves none behind (runner.py)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.plan import LaunchOptions, LaunchPlan

ACROSS_HOSTS = True  # --hosts: the scheduler on the first host, workers on every host

LAUNCHER = ClusterLauncher("dask_cluster")
why_not_here = LAUNCHER.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    cluster = options.cluster
    if cluster is not None:  # one worker per core of every host
        workers = options.ranks or system.ranks or cluster.cores
    else:
        workers = LAUNCHER.workers(system, options)
    threads = options.threads_per_rank or system.threads_per_rank or 1
    if workers < 1 or threads < 1:
        raise UserError(f"--workers {workers} --threads-per-rank {threads}: both must be at least 1", EXIT_USAGE)
    hosts = ["-hosts", str(cluster.path)] if cluster is not None else []
    return LAUNCHER.plan(system, flags, options, ["-workers", str(workers), "-threads", str(threads), *hosts],
                         workers, threads)
