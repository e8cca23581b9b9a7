"""The hosts a run spans: `--hosts FILE` (a cluster description, description.py), else
TASKBENCH_HOSTS=FILE, else this machine alone; `--hosts slurm`: the Slurm allocation the harness
runs in (slurm.py makes its description). Apart from both: the description does not know
of Slurm, and Slurm's module only writes a description."""

from __future__ import annotations

import os
from pathlib import Path

from taskbench.hosts import slurm
from taskbench.hosts.description import HOSTS_VARIABLE, Cluster, read_cluster


def cluster_from(option: str | None, allocation_by_default: bool = False) -> Cluster | None:
    """--hosts FILE, else TASKBENCH_HOSTS, else None: this machine alone. `--hosts slurm`: the
    Slurm allocation the harness runs in, also the default where `allocation_by_default`
    (taskbench hosts, --launcher srun) and the harness runs in one."""
    if not option and allocation_by_default and slurm.in_allocation():
        option = slurm.KEYWORD  # the allocation, over a login node's TASKBENCH_HOSTS
    value = option or os.environ.get(HOSTS_VARIABLE)
    if value == slurm.KEYWORD:
        return slurm.allocation_cluster()
    return read_cluster(Path(value)) if value else None
