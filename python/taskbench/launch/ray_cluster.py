"""A Ray cluster across the hosts of a cluster description, started with Ray's own commands as
its users start one by hand: `ray start --head` on the first host, `ray start --address HEAD`
on every other, each through its host's start method, bound to its host's address and offering
its host's cores. Used by the harness's `ray` launcher (ray_cluster_main.py).

--block keeps each `ray start` in the foreground as the parent of the servers it starts (which
die with it, Ray's own fate sharing): stopping one is killing its pid. What the raylets start
(workers, agents) is found by a marker in the environment (SPT_NOENV keeps it readable in the
processes that rename themselves), here and on every host, and killed by pid.

The GCS and raylets listen on every interface of their host (this Ray has no setting to bind
them to one address): every node and the driver authenticate with a token made for the run,
in a private folder beside the cluster description, on the file system the hosts share."""

from __future__ import annotations

import collections
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time

from taskbench.launch import leftovers, tied
from taskbench.launch.hosts import Cluster as Hosts
from taskbench.launch.hosts import Host
from taskbench.launch.local_cluster import ClusterError, LocalCluster, kill_marked_on_hosts

__all__ = ["Cluster", "ClusterError"]

PORT = 6379  # the head's GCS, at Ray's default port: the one its users expect
START_SECONDS = 120.0  # three nodes' servers on a loaded 2-core machine
READY = "Ray runtime started."  # printed once the node has registered with the GCS
CLUSTER_VARIABLE = "TASKBENCH_RAY_CLUSTER"
# Passed on the command line (ssh drops the environment): the package and _core for Ray's workers.
CARRIED = ("PYTHONPATH", "TASKBENCH_CORE_DIR", leftovers.MARKER_VARIABLE)


class Cluster(LocalCluster):
    def __init__(self, hosts: Hosts, python: str = sys.executable):
        # Ray's session folder (logs, sockets, spilled objects), given to the head; the other
        # nodes take the head's, made on their own host.
        super().__init__("taskbench-ray-")  # roles: the hosts' names
        self.hosts, self.python = hosts, python
        self.marker = leftovers.new_marker()
        self._secret = tempfile.TemporaryDirectory(prefix=".taskbench-ray-", dir=hosts.path.parent)
        token = os.path.join(self._secret.name, "token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(secrets.token_hex(32))
        self.auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": token}  # the driver's too
        self._own = {**leftovers.KEEP_ENVIRON, CLUSTER_VARIABLE: self.marker, "RAY_USAGE_STATS_ENABLED": "0",
                     "PYTHONUNBUFFERED": "1", **self.auth}
        self._lines: dict[str, collections.deque] = {}
        self._seen = threading.Condition()

    @staticmethod
    def _env_args(own: dict) -> list[str]:
        """`env` assignments of what Ray's processes need on a host, on the command line (ssh
        drops the caller's environment)."""
        return [f"{k}={v}" for k, v in {**{k: os.environ[k] for k in CARRIED if k in os.environ}, **own}.items()]

    def _spawn(self, host: Host, argv: list[str]) -> None:
        command = host.command(["env", *self._env_args(self._own), self.python, "-m", "ray.scripts.scripts", "start",
                                "--block", "--node-ip-address", host.address, "--num-cpus", str(host.cores),
                                "--disable-usage-stats", "--include-log-monitor=false", *argv])
        # Ray's start-up chatter is kept here, its last lines told only if the node dies.
        process = tied.popen(command, signal.SIGKILL, env=dict(os.environ, **self._own), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        self.processes[host.name] = process
        self._lines[host.name] = collections.deque(maxlen=20)
        threading.Thread(target=self._read, args=(host.name, process), daemon=True).start()

    def _read(self, role: str, process: subprocess.Popen) -> None:
        for line in process.stdout:
            with self._seen:
                self._lines[role].append(line.rstrip("\n"))
                self._seen.notify_all()

    def last_lines(self, role: str) -> str:
        """What the node's `ray start` printed last that says something (its errors)."""
        lines = [line for line in self._lines.get(role, ()) if line.strip() and not set(line) <= set("-= ")]
        return " | ".join(lines[-3:])

    def _wait_ready(self, role: str) -> None:
        deadline = time.monotonic() + START_SECONDS
        with self._seen:
            while not any(READY in line for line in self._lines[role]):
                process = self.processes[role]
                if process.poll() is not None:
                    raise ClusterError(f"the Ray node on {role} (pid {process.pid}) exited with status "
                                       f"{process.returncode} while the cluster started: {self.last_lines(role)}")
                if time.monotonic() > deadline:
                    raise ClusterError(f"the Ray node on {role} did not start within {START_SECONDS:g} s")
                self._seen.wait(0.2)

    def start(self) -> str:
        """The head, then every other node, one after another; returns the head's address once
        every node has registered with it (the driver then finds all their CPUs). One at a time:
        Ray gives a node 30 s to register, which nodes starting together on shared cores miss."""
        head, *others = self.hosts.hosts
        # No dashboard (its web server), autoscaler or log monitor (the driver takes no worker
        # logs): nothing the run needs, and fewer processes to start and to bind.
        self._spawn(head, ["--head", "--port", str(PORT), "--include-dashboard=false", "--dashboard-host",
                           head.address, "--no-monitor", "--temp-dir", self._folder.name])
        self._wait_ready(head.name)
        address = f"{head.address}:{PORT}"
        for host in others:
            self._spawn(host, ["--address", address])
            self._wait_ready(host.name)
        return address

    def _stop_the_rest(self) -> None:
        """The workers and agents of every raylet (found by the marker): on this machine, then
        on every host, all at once, each by pid."""
        leftovers.kill_all(CLUSTER_VARIABLE, self.marker)
        kill_marked_on_hosts(self.hosts.hosts, CLUSTER_VARIABLE, self.marker, self._env_args({}))

    def stop(self) -> None:
        super().stop()
        self._secret.cleanup()
