"""The starter's side of an engine's cluster: its command line (`PROG [-workers N] [-threads T]
[-hosts FILE] -- SYSTEM [FLAGS...]`), the system run attached to the cluster, watched beside
the cluster's processes, and the starter's end, which is the run's (its status, or its signal)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from taskbench.clusters.base import POLL_SECONDS, ClusterError, EngineCluster, ended
from taskbench.errors import UserError
from taskbench.hosts.description import read_cluster
from taskbench.process import leftovers, tied


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


def run_attached(cluster: EngineCluster, argv_for: Callable[[str], list[str]], supervise: Callable) -> int:
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


def wait_either(cluster: EngineCluster, program: subprocess.Popen) -> None:
    """Until the system ends or a process of the cluster does."""
    while program.poll() is None and not cluster.dead():
        time.sleep(POLL_SECONDS)


def supervise(cluster: EngineCluster, program: subprocess.Popen, settle: float = 0.0, group: bool = False) -> int:
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
