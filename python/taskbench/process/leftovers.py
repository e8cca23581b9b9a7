"""Finding every local process of one launch, wherever it went, by a marker in its environment.

Launchers move their children out of reach of a process-group kill: Open MPI 4.1 puts each rank
in a process group of its own, MPICH's Hydra puts its proxy and each rank in a session of its
own (measured, see docs/reliability.md). What they all keep is the environment: every process
of a launch on this machine inherits the variable below from the harness (mpirun and Hydra
pass their whole environment to local ranks), so /proc/*/environ finds them after their
parents are gone. Processes on other hosts are their launcher's business: srun's among them,
which ends its job step on every node when it gets SIGTERM (so srun is sent that first).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

MARKER_VARIABLE = "TASKBENCH_LAUNCH_MARK"
# setproctitle (dask's scheduler and workers and Parsl's processes call it when it is installed;
# Parsl requires it) writes the new title over the memory that /proc/PID/environ shows, marker
# included, unless SPT_NOENV is set: every environment that carries a marker carries this too.
KEEP_ENVIRON = {"SPT_NOENV": "1"}
# Slurm's srun cancels its job step on every node when it gets SIGTERM (within 20 ms on the test
# Slurm, even for tasks that ignore SIGTERM: they get SIGKILL); SIGKILLed, it leaves the step's
# processes running on their nodes until the allocation ends.
STEP_LAUNCHER = "srun"
STEP_CANCEL_SECONDS = 5.0


def new_marker() -> str:
    return uuid.uuid4().hex


def _proc_root() -> Path:
    return Path("/proc")


_PF_KTHREAD = 0x00200000  # a kernel thread: no environment, ever
_EXEC_WAIT_SECONDS = 0.05


def _stat_fields(entry: Path) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state first), or None."""
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def _environ(entry: Path) -> bytes:
    """A process's environment. A process in the middle of an exec shows an empty one: Linux
    closes its close-on-exec pipes (so the parent's Popen has already returned) before it lays
    the new environment out. A live user process with an empty environment is read again for a
    moment; zombies and kernel threads have none to wait for."""
    deadline = time.monotonic() + _EXEC_WAIT_SECONDS
    while True:
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            return b""
        if environ or time.monotonic() > deadline:
            return environ
        fields = _stat_fields(entry)
        if fields is None or fields[0] in ("Z", "X") or int(fields[6]) & _PF_KTHREAD:
            return environ
        time.sleep(0.001)


def processes_with(variable: str, value: str) -> list[int]:
    """Pids of the live processes whose environment holds variable=value (zombies excluded:
    they have no environment left and hold nothing but a slot in the table)."""
    needle = f"{variable}={value}".encode()
    found = []
    for entry in _proc_root().iterdir():
        if entry.name.isdigit() and needle in _environ(entry).split(b"\0"):
            found.append(int(entry.name))
    return sorted(p for p in found if p != os.getpid())


def _comm(pid: int) -> str:
    try:
        return (_proc_root() / str(pid) / "comm").read_text().strip()
    except OSError:
        return ""


def _cancel_steps(pids: list[int]) -> set[int]:
    """SIGTERM to the srun processes among pids, then a wait for them (at most
    STEP_CANCEL_SECONDS): their job steps end on every node. Returns those signalled."""
    steps = {pid for pid in pids if _comm(pid) == STEP_LAUNCHER}
    for pid in steps:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STEP_CANCEL_SECONDS
    while any(_comm(pid) == STEP_LAUNCHER for pid in steps) and time.monotonic() < deadline:
        time.sleep(0.005)
    return steps


def kill_all(variable: str, value: str, within: float = 2.0) -> int:
    """SIGKILLs every process holding the marker, again until none is left (a launcher may be
    forking one as we look; a killed one takes a moment to exit), for at most `within`
    seconds; srun processes get SIGTERM first (above). Returns how many processes were found."""
    pids = processes_with(variable, value)
    killed = _cancel_steps(pids)
    if killed:  # their steps have ended since: look again
        pids = processes_with(variable, value)
    deadline = time.monotonic() + within
    # The first kill follows the first look at once: a guard that wakes on a loaded machine
    # must not spend its first moments reading /proc twice.
    while pids and time.monotonic() <= deadline:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.005)
        pids = processes_with(variable, value)
    return len(killed)


def wait_until_gone(variable: str, value: str, within: float) -> list[int]:
    """The processes still holding the marker after `within` seconds ([] as soon as none)."""
    deadline = time.monotonic() + within
    while True:
        left = processes_with(variable, value)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.02)


def describe(pid: int) -> str:
    """'PID (name)' for messages about a leftover process."""
    try:
        stat = (_proc_root() / str(pid) / "stat").read_text()
        return f"{pid} ({stat[stat.find('(') + 1:stat.rfind(')')]})"
    except OSError:
        return str(pid)


def death_signal(argv: list[str], otherwise: int) -> int:
    """The signal that ends a process started with argv for good: SIGTERM for srun (above)."""
    program = str(argv[0] if isinstance(argv, (list, tuple)) and argv else argv)
    return signal.SIGTERM if os.path.basename(program) == STEP_LAUNCHER else otherwise


def stop_started(processes, group: bool = False) -> None:
    """Ends processes this one started (subprocess.Popen), at once: srun with SIGTERM, waited
    for (its step ends on every node), every other with SIGKILL, to its process group where
    `group` (a process in a session of its own, with its children)."""
    for process in processes:
        if process.poll() is not None:
            continue
        how = death_signal(process.args, signal.SIGKILL)
        try:
            if group and how == signal.SIGKILL:
                os.killpg(process.pid, how)
            else:
                process.send_signal(how)
        except ProcessLookupError:
            pass
    for process in processes:
        try:
            process.wait(STEP_CANCEL_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
