"""charmrun's options for PEs on the hosts of a cluster description (-hosts FILE): its node
list, and the description's start methods as its remote shell (taskbench's host agent)."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

from taskbench.launch.hosts import Cluster


def slots(cluster: Cluster) -> list[str]:
    """One address per core, the hosts in turn: charmrun places node k on entry k (mod the
    list's length), so the PEs spread over the hosts first, as Dask's workers do."""
    return [h.address for round_ in range(max(h.cores for h in cluster.hosts))
            for h in cluster.hosts if round_ < h.cores]


def own_address(cluster: Cluster) -> str | None:
    """The description's address that belongs to this machine (the harness on the first host,
    as on the test cluster), which charmrun tells its PEs to call back on; None on a login
    node outside the description, where charmrun picks its own."""
    for host in cluster.hosts:
        try:
            with socket.socket(socket.AF_INET6 if ":" in host.address else socket.AF_INET) as probe:
                probe.bind((host.address, 0))
            return host.address
        except OSError:
            continue
    return None


def charmrun_options(cluster: Cluster, folder: Path) -> list[str]:
    """The node list is written into folder, which must outlive charmrun."""
    nodelist = folder / "nodelist"
    nodelist.write_text("group main\n" + "".join(f" host {a}\n" for a in slots(cluster)))
    address = own_address(cluster)
    # charmrun splits the remote shell into words, as Open MPI does its rsh agent.
    return ["++nodelist", str(nodelist), "++remote-shell", f"{sys.executable} -m taskbench.launch.host_agent",
            *(["++useip", address] if address else [])]
