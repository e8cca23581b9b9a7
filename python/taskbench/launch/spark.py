"""The `spark` launcher: a Spark system on a standalone cluster the harness starts for the run.

build/bin/spark_cluster (spark_cluster_main.py) starts a master and a worker of --workers N
cores (default: one per core) on 127.0.0.1, runs the system attached to it, and stops the
cluster after it (its executors and their Python workers too)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.plan import LaunchOptions, LaunchPlan, base_environment, merged_env, program
from taskbench.provenance import available_cores

CLUSTER_PROGRAM = "spark_cluster"


def cluster_program(system):
    """The cluster starter beside the system's executable (the same build)."""
    return system.binary_path.parent / CLUSTER_PROGRAM



def why_not_here(system) -> str:
    if system.binary_path is not None and not cluster_program(system).is_file():
        return f"{cluster_program(system)} missing (the build writes it with the Python systems): run the build"
    return ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    cores = options.ranks or system.ranks or available_cores()
    if cores < 1:
        raise UserError(f"--workers {cores}: must be at least 1", EXIT_USAGE)
    set_env = base_environment(system, options)
    argv = [str(cluster_program(system)), "-workers", str(cores), "--", *program(system), *flags]
    return LaunchPlan(argv, merged_env(set_env), set_env, 1, cores)
