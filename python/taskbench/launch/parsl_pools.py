"""The `parsl_pools` launcher (parsl). On this machine alone: the local launcher (the system
starts its own interchange and pool on 127.0.0.1). With --hosts: Parsl's worker pools on every
host (clusters/parsl_pools.py, through its starter build/libexec/taskbench/parsl_pools), with N
workers in all (--workers, default: one per core of each host)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import local
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.common import LaunchOptions, LaunchCommand

ACROSS_HOSTS = True

LAUNCHER = ClusterLauncher("parsl_pools")


def why_not_here(system) -> str:
    return ""  # the starter is needed across hosts only: command() says so then


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    cluster = options.cluster
    if cluster is None:
        return local.command(system, flags, options)
    LAUNCHER.require(system)
    if options.threads_per_rank and options.threads_per_rank != 1:
        raise UserError(f"--threads-per-rank: {system.name}'s workers run one task at a time", EXIT_USAGE)
    workers = LAUNCHER.workers(system, options)
    # -nodes: the core's local/nonlocal dependency estimate, as for the MPI systems.
    nodes = [] if "-nodes" in flags else ["-nodes", str(len(cluster))]
    return LAUNCHER.command(system, [*flags, *nodes], options, ["-workers", str(workers)], workers, 1)
