"""The `ray` launcher: on this machine alone, the loopback launcher's (the system starts its own
local Ray instance in a namespace with only loopback); with --hosts, a Ray cluster across the
description's hosts that build/bin/ray_cluster (ray_cluster_main.py) starts for the run, the
head on the first host and a node on every other, each offering its host's cores, with the
system's driver here attached to it. Ray's driver attaches to the raylet of its own host, so
here must be one of the hosts."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import loopback
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.plan import LaunchOptions, LaunchPlan

ACROSS_HOSTS = True  # --hosts: the head on the first host, a node on every other

LAUNCHER = ClusterLauncher("ray_cluster")
# Without --hosts nothing of the cluster starter is needed: a build without it still runs here.
why_not_here = loopback.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    cluster = options.cluster
    if cluster is None:
        return loopback.command(system, flags, options)
    if options.ranks or options.threads_per_rank:
        raise UserError("--ranks/--threads-per-rank: a Ray cluster across hosts takes every core of the "
                        "description (its `cores`, one Ray CPU each)", EXIT_USAGE)
    missing = LAUNCHER.why_not_here(system)
    if missing:
        raise UserError(f"--hosts: {missing}", EXIT_USAGE)
    if cluster.here() is None:
        raise UserError(f"--hosts {cluster.path}: Ray's driver attaches to the Ray node of the host it runs on, and "
                        f"none of the hosts' addresses is this machine's: run taskbench on one of them", EXIT_USAGE)
    return LAUNCHER.plan(system, flags, options, ["-hosts", str(cluster.path)], cluster.cores, 1)
