"""charmrun's options for PEs on the hosts of a cluster description (-hosts FILE): its node
list, and the description's start methods as its remote shell (taskbench's host agent)."""
from __future__ import annotations

import sys
from pathlib import Path

from taskbench.hosts.description import Cluster
from taskbench.hosts.slurm import is_allocation


def charmrun_options(cluster: Cluster, folder: Path) -> list[str]:
    """The node list is written into folder, which must outlive charmrun."""
    here = cluster.here()  # where the harness runs on a host, its PEs call back on its address
    callback = ["++useip", here.address] if here is not None else []
    if is_allocation(cluster):
        # A Slurm allocation: charmrun's documented way, srun as its mpiexec (`-n PES`), one step
        # for all PEs. Its remote-shell way starts each PE in the background of a shell that
        # then ends, and Slurm ends a step's processes with its shell.
        nodes = ",".join(h.name for h in cluster.hosts)
        return ["++mpiexec", "++remote-shell", f"srun --overlap --nodes={len(cluster)} --nodelist={nodes}",
                *callback]
    nodelist = folder / "nodelist"
    # charmrun places node k on entry k (mod the list's length): the PEs spread over the hosts first.
    nodelist.write_text("group main\n" + "".join(f" host {h.address}\n" for h in cluster.slots()))
    # charmrun splits the remote shell into words, as Open MPI does its rsh agent.
    return ["++nodelist", str(nodelist), "++remote-shell", f"{sys.executable} -m taskbench.hosts.agent",
            *callback]
