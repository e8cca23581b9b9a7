"""The Ray cluster the `ray` launcher (launch/ray.py) starts across a cluster description's hosts
(on this machine alone the system starts its own local Ray instance), started with Ray's own
commands as its users start one by hand: `ray start --head` on the first host, `ray start
--address HEAD` on every other, each through its host's start method, bound to its host's
address and offering its host's cores; the system's driver runs here, attached to it. Ray's
driver attaches to the raylet of its own host, so here must be one of the hosts.

Its starter, build/libexec/taskbench/ray_cluster -hosts FILE -- SYSTEM [FLAGS...] (main() here),
starts the cluster, runs the driver (`-address HEAD:PORT`) and stops every process of the
cluster after it, however the run ended. It ends as the run ended: the system's own status (3
with the core's line after a failed validation, which the driver prints); or status 1 naming the
host whose Ray node died during the run.

--block keeps each `ray start` in the foreground as the parent of the servers it starts (which
die with it, Ray's own fate sharing): stopping one is killing its pid. What the raylets start
(workers, agents) is found by the cluster's marker (SPT_NOENV keeps it readable in the processes
that rename themselves), here and on every host, and killed by pid.

The GCS and raylets listen on every interface of their host (this Ray has no setting to bind
them to one address): every node and the driver authenticate with a token made for the run,
in a private folder beside the cluster description, on the file system the hosts share."""

from __future__ import annotations

import os
import secrets
import sys
import tempfile

from taskbench.clusters.attached import run_attached, starter_arguments, supervise
from taskbench.clusters.base import EngineCluster
from taskbench.hosts.description import Cluster, Host

PORT = 6379  # the head's GCS, at Ray's default port: the one its users expect
READY = r"Ray runtime started\."  # printed once the node has registered with the GCS


class RayCluster(EngineCluster):
    ENGINE = "Ray"
    STARTS_OTHERS = True

    def __init__(self, hosts: Cluster, python: str = sys.executable):
        # Ray's session folder (logs, sockets, spilled objects), given to the head, is local
        # (its sockets' paths must be short); the other nodes take the head's, made on their own host.
        super().__init__(hosts, shared=False)  # roles: the hosts' names
        self.python = python
        self._secret = tempfile.TemporaryDirectory(prefix=".taskbench-ray-", dir=hosts.path.parent)
        token = os.path.join(self._secret.name, "token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(secrets.token_hex(32))
        self.auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": token}  # the driver's too

    def describe(self, role: str) -> str:
        return f"the Ray node on {role}"

    def _node(self, host: Host, args: list[str]) -> None:
        """`ray start` on the host, waited for until the node has registered. Its start-up chatter
        is kept here, its last lines told only if the node dies."""
        self.spawn(host.name, [self.python, "-m", "ray.scripts.scripts", "start", "--block", "--node-ip-address",
                               host.address, "--num-cpus", str(host.cores), "--disable-usage-stats",
                               "--include-log-monitor=false", *args], host,
                   {"RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1", **self.auth})
        self.wait_for(host.name, lambda: self.line(host.name, READY))

    def start(self) -> str:
        """The head, then every other node, one after another; returns the head's address once
        every node has registered with it (the driver then finds all their CPUs). One at a time:
        Ray gives a node 30 s to register, which nodes starting together on shared cores miss."""
        head, *others = self.hosts.hosts
        # No dashboard (its web server), autoscaler or log monitor (the driver takes no worker
        # logs): nothing the run needs, and fewer processes to start and to bind.
        self._node(head, ["--head", "--port", str(PORT), "--include-dashboard=false", "--dashboard-host",
                          head.address, "--no-monitor", "--temp-dir", str(self.folder)])
        address = f"{head.address}:{PORT}"
        for host in others:
            self._node(host, ["--address", address])
        return address

    def stop(self) -> None:
        super().stop()
        self._secret.cleanup()


# ---- the starter ----

def main(argv: list[str]) -> int:
    args = starter_arguments(argv, "ray_cluster", "starts a Ray cluster across hosts, runs the system's driver "
                             "attached to it, stops it", "a cluster description: the head on its first host, a node "
                             "on every other", hosts_required=True)
    try:
        cluster = RayCluster(args.cluster)
    except OSError as exc:  # the run's token goes beside the description, on the hosts' file system
        sys.stderr.write(f"taskbench: cannot write the Ray cluster's token beside {args.hosts}: {exc}\n")
        return 1
    os.environ.update(cluster.auth)  # the driver's, which it inherits
    return run_attached(cluster, lambda address: [*args.program, "-address", address], supervise)
