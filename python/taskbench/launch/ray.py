"""The `ray` launcher. On this machine alone: the loopback launcher's (the system starts its own
local Ray instance in a namespace with only loopback). With --hosts: a Ray cluster across the
description's hosts (clusters/ray.py, through its starter build/libexec/taskbench/ray_cluster),
the system's driver here, attached to it: here must be one of the hosts."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import loopback
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.common import LaunchOptions, LaunchCommand

ACROSS_HOSTS = True  # --hosts: the head on the first host, a node on every other

LAUNCHER = ClusterLauncher("ray_cluster")
# Without --hosts nothing of the cluster starter is needed: a build without it still runs here.
why_not_here = loopback.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    cluster = options.cluster
    if cluster is None:
        return loopback.command(system, flags, options)
    if options.ranks or options.threads_per_rank:
        raise UserError("--ranks/--threads-per-rank: a Ray cluster across hosts takes every core of the "
                        "description (its `cores`, one Ray CPU each)", EXIT_USAGE)
    LAUNCHER.require(system)
    if cluster.here() is None:
        raise UserError(f"--hosts {cluster.path}: Ray's driver attaches to the Ray node of the host it runs on, and "
                        f"none of the hosts' addresses is this machine's: run taskbench on one of them", EXIT_USAGE)
    return LAUNCHER.command(system, flags, options, [], cluster.cores, 1)
