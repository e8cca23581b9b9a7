"""The `spark` launcher: a Spark system on a standalone cluster the harness starts for the run.

build/bin/spark_cluster (spark_cluster_main.py) starts a master and a worker of --workers N
cores (default: one per core) on 127.0.0.1, runs the system attached to it, and stops the
cluster after it (its executors and their Python workers too)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.cluster_launcher import ClusterLauncher
from taskbench.launch.plan import LaunchOptions, LaunchPlan

LAUNCHER = ClusterLauncher("spark_cluster")
why_not_here = LAUNCHER.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    cores = LAUNCHER.workers(system, options)
    if cores < 1:
        raise UserError(f"--workers {cores}: must be at least 1", EXIT_USAGE)
    return LAUNCHER.plan(system, flags, options, ["-workers", str(cores)], 1, cores)
