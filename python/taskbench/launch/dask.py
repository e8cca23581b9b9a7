"""The `dask` launcher: a Dask distributed system on a cluster the harness starts for the run.

build/bin/dask_cluster (dask_cluster_main.py) starts a scheduler and --workers N worker
processes on 127.0.0.1 (default: one per core), each with --threads-per-rank threads (default
1), runs the system attached to them, and stops them after it. Every process of the launch
carries the run's marker, so a timeout or the harness's death leaves none behind (runner.py)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.plan import LaunchOptions, LaunchPlan, base_environment, merged_env, program
from taskbench.provenance import available_cores

CLUSTER_PROGRAM = "dask_cluster"


def cluster_program(system):
    """The cluster starter beside the system's executable (the same build)."""
    return system.binary_path.parent / CLUSTER_PROGRAM



def why_not_here(system) -> str:
    if system.binary_path is not None and not cluster_program(system).is_file():
        return f"{cluster_program(system)} missing (the build writes it with the Python systems): run the build"
    return ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    workers = options.ranks or system.ranks or available_cores()
    threads = options.threads_per_rank or system.threads_per_rank or 1
    if workers < 1 or threads < 1:
        raise UserError(f"--workers {workers} --threads-per-rank {threads}: both must be at least 1", EXIT_USAGE)
    set_env = base_environment(system, options)
    argv = [str(cluster_program(system)), "-workers", str(workers), "-threads", str(threads), "--",
            *program(system), *flags]
    return LaunchPlan(argv, merged_env(set_env), set_env, workers, threads)
