"""What mpirun and srun launches share: the rank count and the rank check flag."""

from __future__ import annotations

import os
import shutil

from taskbench.errors import EXIT_USAGE, UserError

# MPI systems accept this flag and fail when the launch gave them another rank count, so a
# misconfigured launcher (e.g. N independent singletons) cannot pass for an N-rank run.
EXPECT_RANKS_FLAG = "-expect-ranks"


def rank_count(system, options) -> int:
    ranks = options.ranks or system.ranks or 1
    if ranks < 1:
        raise UserError(f"--ranks must be at least 1, got {ranks}", EXIT_USAGE)
    return ranks


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


# Debian installs both implementations side by side; plain `mpirun`/`mpiexec` point at only one
# of them (alternatives), and a binary started by the other implementation's launcher runs as N
# singletons. So each flavour is looked up by its own names first.
LAUNCHER_NAMES = {
    "openmpi": ["mpirun.openmpi", "/usr/lib64/openmpi/bin/mpirun", "/usr/lib/openmpi/bin/mpirun", "mpirun"],
    "mpich": ["mpiexec.mpich", "mpirun.mpich", "mpiexec.hydra", "/usr/lib64/mpich/bin/mpiexec", "mpiexec"],
}


def flavour(system) -> str:
    return system.mpi or "openmpi"


def find_launcher(system) -> str | None:
    """The launcher program for the system's MPI implementation, or None when not installed."""
    for name in LAUNCHER_NAMES.get(flavour(system), ["mpirun"]):
        found = shutil.which(name)
        if found:
            return found
    return None
