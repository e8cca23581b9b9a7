"""What every launcher shares: the run's launch options, the command a launcher returns, and the
environment and flags common to all of them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from taskbench.hosts.description import Cluster
from taskbench.hosts.simulated import Simulation

# The build's helper programs (cluster starters, the hosts' remote-shell agent): not systems, so
# not in bin/ but beside it, in the build and when installed (cmake/TaskbenchPython.cmake).
HELPER_DIR = Path("libexec", "taskbench")


@dataclass
class LaunchOptions:
    ranks: int | None = None  # --ranks: MPI ranks, or --workers: a Dask cluster's worker processes
    threads_per_rank: int | None = None  # --threads-per-rank
    launcher: str | None = None  # --launcher: srun instead of mpirun for an MPI system
    cluster: Cluster | None = None  # --hosts: the hosts the run spans (None: this machine)
    extra_env: dict[str, str] = field(default_factory=dict)
    simulation: Simulation | None = None  # --simulate and --nodes: a simulated platform's nodes
    run_dir: Path | None = None  # the run's own folder, removed after it (a launcher's files)


@dataclass
class LaunchCommand:
    argv: list[str]
    env: dict[str, str]  # the full environment of the child process
    set_env: dict[str, str]  # what the harness added on top of its own environment (provenance)
    ranks: int = 1
    threads_per_rank: int | None = None
    # The launcher is a shell script that waits for its program and exits 128+N when it dies of
    # signal N (smpirun): the run's status is the program's death, not that number.
    shell_status: bool = False


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


def helper_path(system, name: str) -> Path:
    """The helper program `name` of the build the system's executable is from (bin/../libexec/taskbench)."""
    return system.binary_path.parent.parent / HELPER_DIR / name


def threads_flags(system, options: LaunchOptions) -> list[str]:
    threads = options.threads_per_rank or system.threads_per_rank
    if threads and system.threads_flag:
        return [system.threads_flag, str(threads)]
    return []


def merged_env(set_env: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(set_env)
    return env
