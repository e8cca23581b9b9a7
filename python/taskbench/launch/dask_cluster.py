"""A Dask distributed cluster of local processes on 127.0.0.1: one scheduler and N worker
processes, started with Dask's own `dask scheduler` and `dask worker` commands as its users
start them by hand or in a batch job, watched while a run uses them, and stopped after it.
Given a cluster description (hosts.py), the scheduler runs on its first host and the workers
on every host, each started through its host's start method and bound to its address.

Used by the dask_distributed system run alone (`-workers N`), and by the harness's `dask`
launcher (dask_cluster_main.py), which starts the cluster and runs the system attached to it.

Workers run without a nanny: a nanny restarts a dead worker and keeps its exit status to itself,
but here a worker's death must end the run with that status (3 after a validation failure,
which the core ends with _exit; the signal of a kill), which only the worker's parent sees.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from taskbench.launch import tied
from taskbench.launch.hosts import Cluster as Hosts
from taskbench.launch.hosts import Host
from taskbench.launch.local_cluster import ClusterError, LocalCluster

__all__ = ["Cluster", "ClusterError"]  # ClusterError is the one all local clusters raise

HOST = "127.0.0.1"
HTTP_ADDRESS = f"{HOST}:0"
START_SECONDS = 120.0  # a loaded 2-core machine starts N interpreters that import distributed
# Dask logs every start and stop at INFO: only its errors reach the run's stderr.
QUIET = {"DASK_LOGGING__DISTRIBUTED": "error"}


class Cluster(LocalCluster):
    """relay: the processes' output passes through this process, which keeps each one's last
    `taskbench: ` line (last_message), so that a supervisor can repeat a dead worker's reason
    after whatever else was printed meanwhile."""

    def __init__(self, workers: int, threads: int, python: str = sys.executable, relay: bool = False,
                 hosts: Hosts | None = None):
        super().__init__("taskbench-dask-")  # roles "scheduler", "worker-K"
        self.workers, self.threads, self.python, self.relay = workers, threads, python, relay
        self.hosts = hosts
        if hosts is not None:
            # The scheduler writes its address where the harness reads it: beside the cluster
            # description, on the file system the hosts share (docs/clusters.md).
            self._folder.cleanup()
            self._folder = tempfile.TemporaryDirectory(prefix=".taskbench-dask-", dir=hosts.path.parent)
        self._messages: dict[int, str] = {}
        self._relays: dict[int, threading.Thread] = {}  # pid -> its relay
        self.scheduler_file = Path(self._folder.name) / "scheduler.json"

    def _spawn(self, role: str, argv: list[str], host: Host | None = None) -> None:
        env = dict(os.environ, **QUIET)
        command = [self.python, "-m", *argv]
        if host is not None:  # the quiet log settings travel on the command line (ssh drops env)
            command = host.command(["env", *(f"{k}={v}" for k, v in QUIET.items()), *command])
        # Tied: they die with whoever started them, however it ends (tied.py); their output is
        # the run's stderr, where a worker's validation line must appear.
        output = subprocess.PIPE if self.relay else sys.stderr.fileno()
        process = tied.popen(command, signal.SIGKILL, env=env, stdin=subprocess.DEVNULL,
                             stdout=output, stderr=subprocess.STDOUT if self.relay else None)
        self.processes[role] = process
        if self.relay:
            relay = threading.Thread(target=self._relay, args=(process,), daemon=True)
            relay.start()
            self._relays[process.pid] = relay

    def _relay(self, process: subprocess.Popen) -> None:
        for line in iter(process.stdout.readline, b""):
            sys.stderr.buffer.write(line)
            sys.stderr.flush()
            if line.startswith(b"taskbench: "):
                self._messages[process.pid] = line.decode(errors="replace").rstrip("\n")

    def last_message(self, pid: int) -> str:
        """The last `taskbench: ` line a process printed (relay only), or ""."""
        if pid in self._relays:
            self._relays[pid].join(1.0)  # a dead process's pipe ends at once: its last lines are read
        return self._messages.get(pid, "")

    def start(self) -> str:
        """Starts the scheduler and every worker at once (workers wait for the scheduler file)
        and returns the scheduler's address once it listens. The caller waits for the workers
        (Client.wait_for_workers): they are ready when the scheduler has them."""
        if self.hosts is not None:
            return self._start_on_hosts()
        folder = self._folder.name
        # Every Dask server runs an HTTP server (health, metrics) that --no-dashboard leaves on,
        # on 0.0.0.0 unless told otherwise (the scheduler's on 8787): here, loopback, any port.
        self._spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", HOST, "--port", "0",
                                  "--no-dashboard", "--dashboard-address", HTTP_ADDRESS,
                                  "--scheduler-file", str(self.scheduler_file)])
        for k in range(self.workers):
            # No memory limit: a benchmark's outputs must never be spilled to disk or paused on.
            self._spawn(f"worker-{k}", ["distributed.cli.dask_worker", "--scheduler-file",
                                        str(self.scheduler_file), "--host", HOST, "--nthreads",
                                        str(self.threads), "--no-nanny", "--no-dashboard",
                                        "--dashboard-address", HTTP_ADDRESS,
                                        "--memory-limit", "0", "--name", f"worker-{k}",
                                        "--local-directory", folder])
        return self._address()

    def worker_hosts(self) -> list[Host]:
        """The host of each worker: the hosts in turn, each up to its cores, then round again."""
        slots = self.hosts.slots()
        return [slots[k % len(slots)] for k in range(self.workers)]

    def _start_on_hosts(self) -> str:
        """The scheduler on the first host, then each worker on its host, given the scheduler's
        address (a scheduler file in a local folder would not be seen there)."""
        first = self.hosts.hosts[0]
        self._spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", first.address, "--port", "0",
                                  "--no-dashboard", "--dashboard-address", f"{first.address}:0",
                                  "--scheduler-file", str(self.scheduler_file)], first)
        address = self._address()
        for k, host in enumerate(self.worker_hosts()):
            self._spawn(f"worker-{k}", ["distributed.cli.dask_worker", address, "--host", host.address,
                                        "--nthreads", str(self.threads), "--no-nanny", "--no-dashboard",
                                        "--dashboard-address", f"{host.address}:0", "--memory-limit", "0",
                                        "--name", f"worker-{k}"], host)
        return address

    def _address(self) -> str:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            dead = self.dead()
            if dead:
                raise ClusterError(f"the Dask {dead[0]} (pid {dead[1]}) exited with status {dead[2]} "
                                   "while the cluster started")
            try:
                return json.loads(self.scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or half written
                time.sleep(0.02)
        raise ClusterError(f"the Dask scheduler did not start within {START_SECONDS:g} s")

    def exit_codes(self, settle: float = 1.0) -> dict[int, int | None]:
        """pid -> exit status of every process that has ended (within `settle` seconds for
        the first: a worker's death is seen by the scheduler as its socket closes, a moment
        before its parent can collect its status)."""
        deadline = time.monotonic() + settle
        while not self.dead() and time.monotonic() < deadline:
            time.sleep(0.01)
        return {p.pid: p.returncode for p in self.processes.values() if p.poll() is not None}
