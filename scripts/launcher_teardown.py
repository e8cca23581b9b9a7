#!/usr/bin/env python3
"""Measures what happens to an MPI job's ranks when its launcher, or the harness above it, dies.

For each MPI implementation built here, a 2-rank job whose rank 1 hangs (TASKBENCH_FAULT, so
no rank ever ends by itself) is started, and once its ranks run:
  mpirun SIGKILL       the launcher is SIGKILLed
  mpirun SIGTERM       the launcher is SIGTERMed
  harness SIGKILL, tie only
                       a stand-in harness started the launcher tied to itself
                       (PR_SET_PDEATHSIG = SIGTERM, taskbench/process/tied.py) and is SIGKILLed
  harness SIGKILL, taskbench
                       a stand-in harness runs the job with taskbench's run_once (tie and
                       guard) and is SIGKILLed
and the time until every process of the job is gone is measured (at most LIMIT seconds), with
how the ranks ended. This process is the subreaper of everything it starts, so it collects the
exit status of ranks whose parents died.

Usage: scripts/launcher_teardown.py [--build-dir build] [--reps 3]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from taskbench.process import leftovers  # noqa: E402
from taskbench.launch import LaunchOptions, command  # noqa: E402
from taskbench.registry import Registry  # noqa: E402
from taskbench.registry.locations import find_layout  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36
LIMIT = 10.0  # seconds we wait for the job to go away by itself
PROBE = "TASKBENCH_TEARDOWN_PROBE"
SYSTEMS = {"Open MPI": "mpi_p2p", "MPICH": "mpi_p2p_mpich"}
SCENARIOS = ["mpirun SIGKILL", "mpirun SIGTERM", "harness SIGKILL, tie only", "harness SIGKILL, taskbench"]


@dataclass
class Trial:
    seconds: float | None  # until no process of the job was left; None: still there at LIMIT
    launcher_seconds: float | None = None  # until the launcher itself was gone
    endings: dict[str, int] = field(default_factory=dict)  # "exit 195" -> how many ranks


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def _status(status: int) -> str:
    return f"{signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"


def _stand_in(code_body: str, env: dict) -> subprocess.Popen:
    code = f"import os, signal, subprocess, sys, time\nsys.path.insert(0, {str(REPO / 'python')!r})\n" + code_body
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)


def trial(system, scenario: str) -> Trial:
    marker = leftovers.new_marker()
    launch = command(system, ["-steps", "4", "-width", "2", "-type", "stencil_1d"], LaunchOptions())
    env = dict(launch.env, TASKBENCH_FAULT="hang:0,1,1", **{PROBE: marker})
    launcher = None
    if scenario.startswith("mpirun"):
        launcher = subprocess.Popen(launch.argv, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
        victim = launcher
    elif scenario == "harness SIGKILL, tie only":
        victim = _stand_in(textwrap.dedent(f"""
            from taskbench.process import tied
            tied.popen({launch.argv!r}, signal.SIGTERM, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, start_new_session=True)
            print("started", flush=True)
            time.sleep(600)
        """), env)
        victim.stdout.readline()
    else:
        victim = _stand_in(textwrap.dedent(f"""
            from taskbench.registry.locations import find_layout
            from taskbench.registry import Registry
            from taskbench.launch.runner import run_once
            system = Registry(find_layout({str(system.binary_path.parent.parent)!r})).get({system.name!r})
            print("started", flush=True)
            run_once(system, ["-steps", "4", "-width", "2", "-type", "stencil_1d"], timeout=600)
        """), env)
        victim.stdout.readline()
    binary = system.binary_path.name

    def ranks() -> list[int]:
        return [p for p in leftovers.processes_with(PROBE, marker) if _comm(p) == binary]

    deadline = time.monotonic() + 30
    while len(ranks()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # past MPI_Init: rank 0 waits for rank 1, which sleeps in the fault
    harness = None if launcher is not None else victim.pid  # a stand-in harness is not the job
    job = {p: _comm(p) for p in leftovers.processes_with(PROBE, marker) if p != harness}
    launcher_pids = {p for p, name in job.items() if name.startswith(("mpirun", "mpiexec"))}
    start = time.monotonic()
    victim.send_signal(signal.SIGTERM if scenario == "mpirun SIGTERM" else signal.SIGKILL)
    result = Trial(None)

    def reap() -> None:  # whatever ended: our children, and orphans (we are their reaper)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if job.get(pid) == binary:
                result.endings[_status(status)] = result.endings.get(_status(status), 0) + 1

    while time.monotonic() - start < LIMIT:
        reap()
        left = [p for p in leftovers.processes_with(PROBE, marker) if p != harness]
        if result.launcher_seconds is None and not launcher_pids & set(left):
            result.launcher_seconds = time.monotonic() - start
        if not left:
            result.seconds = time.monotonic() - start
            break
        time.sleep(0.002)
    # A process that has exited is gone from the lookup above before it is reaped.
    settle = time.monotonic() + 0.3
    while time.monotonic() < settle:
        reap()
        time.sleep(0.01)
    leftovers.kill_all(PROBE, marker)
    for proc in (victim, launcher):
        if proc is not None and proc.poll() is None:
            proc.kill()
    return result


def measure(build_dir: str | None, reps: int) -> dict[str, dict[str, list[Trial]]]:
    """{implementation: {scenario: trials}} for the MPI implementations built here."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    registry = Registry(find_layout(build_dir))
    results = {}
    for implementation, name in SYSTEMS.items():
        system = registry.systems.get(name)
        if system is None or not system.available:
            continue
        results[implementation] = {s: [trial(system, s) for _ in range(reps)] for s in SCENARIOS}
    return results


def describe(trials: list[Trial]) -> str:
    """'0.010-0.013 s (ranks: SIGKILL x2)', or 'still running after 10 s'."""
    times = [t.seconds for t in trials]
    if any(t is None for t in times):
        return f"still running after {LIMIT:g} s in {sum(t is None for t in times)} of {len(times)}"
    span = f"{min(times):.3f}-{max(times):.3f} s" if len(times) > 1 else f"{times[0]:.3f} s"
    endings: dict[str, int] = {}
    for t in trials:
        for how, n in t.endings.items():
            endings[how] = endings.get(how, 0) + n
    launcher = [t.launcher_seconds for t in trials if t.launcher_seconds is not None]
    parts = []
    if launcher:
        parts.append(f"launcher gone after {min(launcher):.3f}-{max(launcher):.3f} s")
    if endings:  # seen only for ranks whose parent died before them (we reaped them)
        parts.append("orphaned ranks ended by " + ", ".join(f"{how} x{n}" for how, n in sorted(endings.items())))
    return span + (f" ({'; '.join(parts)})" if parts else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    for implementation, scenarios in measure(args.build_dir, args.reps).items():
        for scenario, trials in scenarios.items():
            print(f"{implementation}\t{scenario}\t{describe(trials)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
