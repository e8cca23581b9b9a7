"""What every engine's cluster is built on (one small file each: dask.py, ray.py, spark.py,
parsl_pools.py): its processes by role (EngineCluster: started tied to this process, on a host
through its start method, their output read, watched, stopped with everything they started),
and the commands that reach a host of the cluster description (on_host, kill_marked_on_hosts).
The starter's side (its command line, the run attached to the cluster) is attached.py; what the
harness runs to start a starter is launch/cluster_launcher.py."""

from __future__ import annotations

import collections
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from taskbench.hosts.description import Cluster, Host
from taskbench.process import leftovers, tied

POLL_SECONDS = 0.02
STOP_SECONDS = 15.0  # a host's start method (ssh) that hangs must not hang the run's end
KEPT_LINES = 500  # of each process's output, for its last words and the lines a start waits for
# Every process of a cluster carries its marker (its servers' own children too: executors,
# Ray's workers), by which stop() finds them, on every host.
MARK_VARIABLE = "TASKBENCH_CLUSTER_MARK"
# On a host's command line, as ssh drops the environment: the package and _core for the
# engine's workers, the run's fault switch and marker.
CARRIED = ("PYTHONPATH", "TASKBENCH_CORE_DIR", "TASKBENCH_FAULT", leftovers.MARKER_VARIABLE, *leftovers.KEEP_ENVIRON)
# Run on each host at the end: the cluster's processes there, found by the marker, by pid.
KILL_MARKED = "import sys; from taskbench.process.leftovers import kill_all; kill_all(*sys.argv[1:])"


class ClusterError(RuntimeError):
    """A cluster process that did not start, or ended while the cluster started."""


def on_host(host: Host, argv: list[str], env: dict) -> list[str]:
    """argv run on the host through its start method, with `env` and CARRIED (from this process's
    environment) as `env` assignments on its command line."""
    values = {**{k: os.environ[k] for k in CARRIED if k in os.environ}, **env}
    return host.command(["env", *(f"{k}={v}" for k, v in values.items()), *argv])


def kill_marked_on_hosts(hosts, marker: str) -> None:
    """The processes holding the marker on every host, killed there by pid, all hosts at once; a
    host that does not answer within STOP_SECONDS is left to its own end."""
    killers = [subprocess.Popen(on_host(host, [sys.executable, "-c", KILL_MARKED, MARK_VARIABLE, marker], {}),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for host in hosts]
    deadline = time.monotonic() + STOP_SECONDS
    for killer in killers:
        try:
            killer.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            killer.kill()
            killer.wait()


def scratch_folder(engine: str, hosts: Cluster | None) -> tempfile.TemporaryDirectory:
    """A folder for the cluster's files: beside the description, on the file system the hosts
    share (docs/clusters.md), named for this host and process; else a local one. Those beside it
    of earlier runs on this host whose process is gone (a timeout's SIGKILL leaves its folder) go
    first; other hosts' are theirs to remove."""
    if hosts is None:
        return tempfile.TemporaryDirectory(prefix=f"taskbench-{engine}-")
    prefix = f".taskbench-{engine}-{socket.gethostname()}-"
    for path in hosts.path.parent.glob(prefix + "*"):
        pid = path.name[len(prefix):].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=hosts.path.parent)


def ended(code: int) -> str:
    return f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"


class EngineCluster:
    """An engine's cluster: its processes by role, started here or on the hosts of a cluster
    description, watched while a run uses them, and stopped (SIGKILL: nothing in them is worth a
    graceful close) with everything they started, however the run ended."""
    ENGINE = ""  # its name in messages
    START_SECONDS = 120.0  # a loaded 2-core machine starts N interpreters (or JVMs)
    STARTS_OTHERS = False  # whether its servers start processes of their own, not our children
    GROUPS = False  # whether each process starts a session of its own, stopped as a group

    def __init__(self, hosts: Cluster | None = None, shared: bool = True):
        """shared: the scratch folder beside the description (the hosts see it), else local."""
        self.hosts = hosts
        self.processes: dict[str, subprocess.Popen] = {}
        self.marker = leftovers.new_marker()
        self._folder = scratch_folder(self.ENGINE.lower(), hosts if shared else None)
        self.folder = Path(self._folder.name)
        self._lines: dict[str, collections.deque] = {}  # role -> its last lines (kept, not shown)
        self._messages: dict[str, str] = {}  # role -> its last `taskbench: ` line
        self._readers: dict[str, threading.Thread] = {}
        self._seen = threading.Condition()

    def describe(self, role: str) -> str:
        return f"the {self.ENGINE} {role}"

    def spawn(self, role: str, argv: list[str], host: Host | None = None, env: dict | None = None,
              read: bool = True, echo: bool = False) -> None:
        """argv started as the process `role`, on `host` through its start method (else here),
        tied to this process (process/tied.py), with `env` and the marker on top of this environment.
        read: its output (stdout and stderr) read here, kept (last_lines) or, with `echo`, passed
        on to this process's stderr (last_message); else it goes to this process's stderr."""
        own = {**leftovers.KEEP_ENVIRON, MARK_VARIABLE: self.marker, **(env or {})}
        command = argv if host is None else on_host(host, argv, own)
        process = tied.popen(command, signal.SIGKILL, env=dict(os.environ, **own), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE if read else sys.stderr.fileno(),
                             stderr=subprocess.STDOUT if read else None, text=True, errors="replace",
                             start_new_session=self.GROUPS)
        self.processes[role] = process
        if read:
            if not echo:
                self._lines[role] = collections.deque(maxlen=KEPT_LINES)
            self._readers[role] = threading.Thread(target=self._read, args=(role, process, echo), daemon=True)
            self._readers[role].start()

    def _read(self, role: str, process: subprocess.Popen, echo: bool) -> None:
        for line in process.stdout:
            if echo:
                sys.stderr.write(line)
                sys.stderr.flush()
            with self._seen:
                if line.startswith("taskbench: "):
                    self._messages[role] = line.rstrip("\n")
                if not echo:
                    self._lines[role].append(line.rstrip("\n"))
                self._seen.notify_all()

    def _read_to_end(self, role: str) -> None:
        if role in self._readers:
            self._readers[role].join(1.0)  # an ended process's pipe ends at once: its last lines are read

    def last_message(self, role: str) -> str:
        """The last `taskbench: ` line the process printed (read only), or ""."""
        self._read_to_end(role)
        return self._messages.get(role, "")

    def last_lines(self, role: str) -> str:
        """What a process whose output is kept printed last that says something (its errors)."""
        self._read_to_end(role)
        lines = [line for line in self._lines.get(role, ()) if line.strip() and not set(line) <= set("-= ")]
        return " | ".join(lines[-3:])

    def line(self, role: str, pattern: str) -> re.Match | None:
        """The first kept line of the process that matches."""
        with self._seen:
            return next((m for m in map(re.compile(pattern).search, self._lines[role]) if m), None)

    def wait_for(self, role: str, found: Callable):
        """The first value found() returns that is not empty (asked again whenever a process
        prints a line, and every POLL_SECONDS); ClusterError when a process of the cluster ends
        first, or after START_SECONDS."""
        deadline = time.monotonic() + self.START_SECONDS
        while not (value := found()):
            if dead := self.dead():
                said = self.last_lines(dead[0])
                raise ClusterError(f"{self.describe(dead[0])} (pid {dead[1]}) exited with status {dead[2]} while "
                                   f"the cluster started{': ' + said if said else ''}")
            if time.monotonic() > deadline:
                raise ClusterError(f"{self.describe(role)} did not start within {self.START_SECONDS:g} s")
            with self._seen:
                self._seen.wait(POLL_SECONDS)
        return value

    def dead(self) -> tuple[str, int, int] | None:
        """(role, pid, exit status) of the first cluster process found ended, or None."""
        for role, process in self.processes.items():
            if process.poll() is not None:
                return role, process.pid, process.returncode
        return None

    def start(self) -> str:
        """Starts the cluster; returns the address the system attaches to."""
        raise NotImplementedError

    def stop(self) -> None:
        """SIGKILL to every process it started (an srun that started one on a Slurm node gets
        SIGTERM: leftovers.stop_started), and to what they started (found by the marker, here
        and on every host)."""
        leftovers.stop_started(list(self.processes.values()), group=self.GROUPS)
        if self.STARTS_OTHERS:
            leftovers.kill_all(MARK_VARIABLE, self.marker)
            if self.hosts is not None:
                kill_marked_on_hosts(self.hosts.hosts, self.marker)
        self._folder.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
