"""What mpirun and srun launches share: the ranks and threads per rank, and the rank check flag."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.common import LaunchOptions
from taskbench.provenance import available_cores

# MPI systems accept this flag and fail when the launch gave them another rank count, so a
# misconfigured launcher (e.g. N independent singletons) cannot pass for an N-rank run.
EXPECT_RANKS_FLAG = "-expect-ranks"


def rank_layout(system, options) -> LaunchOptions:
    """The run's options with its ranks and threads per rank filled in: --ranks and
    --threads-per-rank, else the registry entry's, else the machine's: one rank per available
    core (and a driver rank beside them where rank 0 only submits work), or for a hybrid system
    (one with a threads flag) one rank with every core as its threads, as the Task Bench paper ran
    MPI+OpenMP: a rank per node (docs/mpi.md)."""
    cores = available_cores()
    ranks = options.ranks or system.ranks
    threads = options.threads_per_rank or system.threads_per_rank
    for flag, value in (("--ranks", ranks), ("--threads-per-rank", threads)):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be at least 1, got {value}", EXIT_USAGE)
    if not system.threads_flag:
        ranks = ranks or max(1, cores // (threads or 1)) + system.driver_rank
    elif ranks and not threads:
        threads = max(1, cores // ranks)
    elif threads and not ranks:
        ranks = max(1, cores // threads)
    elif not ranks:
        ranks, threads = 1, cores
    return replace(options, ranks=ranks, threads_per_rank=threads)


def cluster_layout(system, options: LaunchOptions) -> LaunchOptions:
    """Ranks across the hosts, unless --ranks or the registry entry says: one per core of every
    host (and a driver rank, for a system that has one), or for a hybrid system one per host with
    its cores as threads (the fewest any has)."""
    cluster = options.cluster
    if options.ranks or system.ranks:
        return options
    if system.threads_flag:
        threads = options.threads_per_rank or min(h.cores for h in cluster.hosts)
        return replace(options, ranks=len(cluster), threads_per_rank=threads)
    # A driver rank that only submits work comes on top, on the first host (ranks go round).
    return replace(options, ranks=cluster.cores + system.driver_rank)


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
