"""What every cluster launcher is built on (one small file each: dask_cluster.py, ray_cluster.py,
spark_cluster.py, parsl_pools.py). A cluster launcher's plan runs its starter, a helper program
of the build (build/libexec/taskbench/<its module's name>, through starter.py), which starts the
engine's cluster with the engine's own commands (as its users start one by hand or in a batch
job), on this machine or across the hosts of a cluster description, runs the system attached
to it, and stops every process of the cluster after it, by pid, however the run ended; it ends
as the run ended.

Here: the launcher's side (ClusterLauncher: the starter, its check, the command line around the
system's), the cluster's processes (BaseCluster: started tied to this process, on a host
through its start method, their output read, watched, stopped with everything they started),
and the starter's side (starter_arguments, run_attached, supervise, die_like)."""

from __future__ import annotations

import argparse
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

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import leftovers, tied
from taskbench.launch.hosts_file import Cluster as Hosts
from taskbench.launch.hosts_file import Host, read_cluster
from taskbench.launch.plan import LaunchOptions, LaunchPlan, base_environment, helper_path, merged_env, program
from taskbench.provenance import available_cores

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
KILL_MARKED = "import sys; from taskbench.launch.leftovers import kill_all; kill_all(*sys.argv[1:])"


class ClusterLauncher:
    def __init__(self, starter: str):
        self.starter = starter  # the starter's name among the build's helpers (its module's)

    def starter_path(self, system) -> Path:
        return helper_path(system, self.starter)

    def why_not_here(self, system) -> str:
        if system.binary_path is not None and not self.starter_path(system).is_file():
            return f"{self.starter_path(system)} missing (the build writes it with the Python systems): run the build"
        return ""

    def require(self, system) -> None:
        """For a launcher that needs its starter across hosts only: a UserError without it."""
        if reason := self.why_not_here(system):
            raise UserError(f"--hosts: {reason}", EXIT_USAGE)

    def workers(self, system, options: LaunchOptions) -> int:
        """--workers, else the registry entry's `ranks`, else the cores (of every host, with --hosts)."""
        return options.ranks or system.ranks or (options.cluster.cores if options.cluster else available_cores())

    def plan(self, system, flags: list[str], options: LaunchOptions, starter_args: list[str], ranks: int,
             threads_per_rank: int) -> LaunchPlan:
        """The starter with its own arguments (and -hosts FILE), then `--` and the system's command line."""
        set_env = base_environment(system, options)
        hosts = ["-hosts", str(options.cluster.path)] if options.cluster is not None else []
        argv = [str(self.starter_path(system)), *starter_args, *hosts, "--", *program(system), *flags]
        return LaunchPlan(argv, merged_env(set_env), set_env, ranks, threads_per_rank)


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


def scratch_folder(engine: str, hosts: Hosts | None) -> tempfile.TemporaryDirectory:
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


class BaseCluster:
    """An engine's cluster: its processes by role, started here or on the hosts of a cluster
    description, watched while a run uses them, and stopped (SIGKILL: nothing in them is worth a
    graceful close) with everything they started, however the run ended."""
    ENGINE = ""  # its name in messages
    START_SECONDS = 120.0  # a loaded 2-core machine starts N interpreters (or JVMs)
    STARTS_OTHERS = False  # whether its servers start processes of their own, not our children
    GROUPS = False  # whether each process starts a session of its own, stopped as a group

    def __init__(self, hosts: Hosts | None = None, shared: bool = True):
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
        tied to this process (tied.py), with `env` and the marker on top of this environment.
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


# ---- the starter's side: its command line, the run attached to the cluster, its end ----

def starter_arguments(argv: list[str], prog: str, description: str, hosts: str, hosts_required: bool = False,
                      workers: str = "", threads: str = "") -> argparse.Namespace:
    """`PROG [-workers N] [-threads T] [-hosts FILE] -- SYSTEM [FLAGS...]`, each option given
    with its help: args.program, args.cluster (the description read, or None) and the options."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    if workers:
        parser.add_argument("-workers", type=int, required=True, help=workers)
    if threads:
        parser.add_argument("-threads", type=int, default=1, help=threads)
    parser.add_argument("-hosts", required=hosts_required, help=hosts + " (docs/clusters.md)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- SYSTEM [FLAGS...]")
    args = parser.parse_args(argv)
    args.program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not args.program or min(getattr(args, "workers", 1), getattr(args, "threads", 1)) < 1:
        needs = (["-hosts FILE"] if hosts_required else []) + (["-workers N >= 1"] if workers else []) + \
                (["-threads T >= 1"] if threads else [])
        parser.error(f"needs {', '.join(needs + ['-- SYSTEM [FLAGS...]'])}")
    try:
        args.cluster = read_cluster(Path(args.hosts)) if args.hosts else None
    except UserError as exc:
        parser.error(str(exc))
    return args


def end_on_signals() -> None:
    """SIGTERM and SIGHUP end this process through its `finally`s: the cluster is stopped."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, _: sys.exit(128 + number))


def die_like(code: int) -> None:
    """Exits with the status `code`, a negative one by dying of that signal."""
    sys.stdout.flush()
    sys.stderr.flush()
    if code < 0:
        if -code not in (signal.SIGKILL, signal.SIGSTOP):  # the two that have no handler
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def run_attached(cluster: BaseCluster, argv_for: Callable[[str], list[str]], supervise: Callable) -> int:
    """cluster.start() returns the address that argv_for turns into the system's command line;
    supervise(cluster, process) returns the status to end with. The cluster is stopped in every
    case, SIGTERM and SIGHUP included."""
    end_on_signals()
    try:
        try:
            address = cluster.start()
        except ClusterError as exc:
            sys.stderr.write(f"taskbench: {exc}\n")
            return 1
        status = supervise(cluster, tied.popen(argv_for(address), signal.SIGKILL))
    finally:
        cluster.stop()
    die_like(status)
    return status


def wait_either(cluster: BaseCluster, program: subprocess.Popen) -> None:
    """Until the system ends or a process of the cluster does."""
    while program.poll() is None and not cluster.dead():
        time.sleep(POLL_SECONDS)


def supervise(cluster: BaseCluster, program: subprocess.Popen, settle: float = 0.0, group: bool = False) -> int:
    """The system's status; or, where a process of the cluster ended first and the system did not
    end on its own within `settle` seconds of it, status 1 and a line naming that process (the
    system is stopped, with its process group where `group`: it would wait for that process's
    work forever)."""
    wait_either(cluster, program)
    deadline = time.monotonic() + settle
    while program.poll() is None and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
    if program.poll() is not None:
        return program.returncode
    leftovers.stop_started([program], group=group)
    role, pid, code = cluster.dead()
    said = cluster.last_lines(role)
    sys.stderr.write(f"taskbench: {cluster.describe(role)} (pid {pid}) {ended(code)} during the run"
                     f"{': ' + said if said else ''}\n")
    return 1
