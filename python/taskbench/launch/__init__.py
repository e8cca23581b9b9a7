"""Launchers turn (system, flags, ranks, threads) into a command line and an environment.

Each launcher is one small module with a `command(system, flags, options)` function returning a
LaunchPlan; the runner executes the plan. The registry entry's `launcher` key picks the module.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from taskbench.errors import EXIT_USAGE, UserError


@dataclass
class LaunchOptions:
    ranks: int | None = None  # --ranks: MPI ranks, or --workers: a Dask cluster's worker processes
    threads_per_rank: int | None = None  # --threads-per-rank
    launcher: str | None = None  # --launcher: srun instead of mpirun for an MPI system
    extra_env: dict[str, str] = field(default_factory=dict)


@dataclass
class LaunchPlan:
    argv: list[str]
    env: dict[str, str]  # the full environment of the child process
    set_env: dict[str, str]  # what the harness added on top of its own environment (provenance)
    ranks: int = 1
    threads_per_rank: int | None = None


def base_environment(system, options: LaunchOptions) -> dict[str, str]:
    """The variables the harness sets for this system: registry env, then the user's extras."""
    env = dict(system.env)
    if options.threads_per_rank:
        # OpenMP-based systems read OMP_NUM_THREADS when they have no threads flag.
        env["OMP_NUM_THREADS"] = str(options.threads_per_rank)
    env.update(options.extra_env)
    return env


def program(system) -> list[str]:
    """The binary and the registry entry's own flags, which come before the run's."""
    return [str(system.binary_path), *system.args]


def threads_flags(system, options: LaunchOptions) -> list[str]:
    threads = options.threads_per_rank or system.threads_per_rank
    if threads and system.threads_flag:
        return [system.threads_flag, str(threads)]
    return []


def merged_env(set_env: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(set_env)
    return env


MPI_LAUNCHERS = ("mpirun", "srun")


def plan(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    # The engine that starts an MPI system's ranks is a property of the run (a laptop's mpirun,
    # a cluster's srun), not of the system: --launcher picks it.
    launcher = options.launcher or system.launcher
    if options.launcher and (system.launcher not in MPI_LAUNCHERS or launcher not in MPI_LAUNCHERS):
        raise UserError(f"--launcher {options.launcher}: only mpirun or srun, and only for MPI systems "
                        f"('{system.name}' is launched by {system.launcher})", EXIT_USAGE)
    if launcher == "local":
        from taskbench.launch import local as module
    elif launcher == "mpirun":
        from taskbench.launch import mpirun as module
    elif launcher == "srun":
        from taskbench.launch import srun as module
    elif launcher == "dask":
        from taskbench.launch import dask as module
    elif launcher == "external":
        from taskbench.launch import external as module
    elif launcher == "loopback":
        from taskbench.launch import loopback as module
    elif launcher == "spark":
        from taskbench.launch import spark as module
    else:
        raise UserError(f"system '{system.name}': unknown launcher '{system.launcher}'", EXIT_USAGE)
    return module.command(system, flags, options)
