"""A watchdog that outlives the harness by milliseconds and kills what the harness started.

PR_SET_PDEATHSIG (tied.py) reaches only the harness's direct child. Behind an mpirun, the
ranks are its children, not ours, and they do not die with it at once: measured with Open MPI
4.1.4, ranks outlive a SIGKILLed mpirun by about 1 s (then exit 195 by themselves) and a
SIGTERMed mpirun takes about 1 s to end them, up to 4 s once its parent is gone (see
docs/reliability.md). A benchmark left spinning that long disturbs whatever runs next, such as
the resumed sweep.

So the harness starts one guard (lazily, with its first run): a small process in a session of
its own whose stdin is a pipe from the harness. The kernel closes that pipe when the harness
exits, however it exits, SIGKILL included; the guard then SIGKILLs every process carrying the
harness's marker (every run's environment holds it, leftovers.py) and exits. It also ends when
the harness ends normally, finding nothing to kill.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from taskbench.process import leftovers

HARNESS_MARK_VARIABLE = "TASKBENCH_HARNESS_MARK"
CLEANUP_SECONDS = 10.0  # keep killing what appears (a launcher forking as it dies) this long

_guard: subprocess.Popen | None = None
_marker: str | None = None
_owner: int | None = None


def harness_marker() -> str | None:
    """The marker of this harness process's runs, with its guard running; None when no guard
    could be started (then only the runs' own ties remain; not tried again)."""
    global _guard, _marker, _owner
    if _owner == os.getpid() and (_guard is None or _guard.poll() is None):
        return _marker
    _owner, _marker = os.getpid(), None
    marker = leftovers.new_marker()
    package_parent = str(Path(__file__).resolve().parents[2])  # taskbench/process/guard.py
    # A bare environment: the guard must not carry the marks of the runs it watches (nor any
    # variable a test looks for among the harness's children).
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": package_parent}
    try:
        # Not tied: it must outlive the harness to do its work.
        _guard = subprocess.Popen([sys.executable, "-m", "taskbench.process.guard", marker],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    except OSError:
        _guard = None
        return None
    # Its start-up (an interpreter, tens of ms of CPU) must not overlap the first run.
    if _guard.stdout.readline() != b"ready\n":
        _guard.kill()
        _guard.wait()
        _guard = None
        return None
    _marker = marker
    return marker


def main(argv: list[str]) -> int:
    (marker,) = argv
    sys.stdout.write("ready\n")
    sys.stdout.close()
    # In a session of its own, so a Ctrl-C on the terminal reaches only the harness, which then
    # stops its runs itself. EOF: the harness has ended, and its end of the pipe with it.
    while sys.stdin.buffer.read(65536):
        pass
    leftovers.kill_all(HARNESS_MARK_VARIABLE, marker, within=CLEANUP_SECONDS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
