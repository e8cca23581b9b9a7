"""Child processes tied to the harness: when the harness dies, even by SIGKILL, they get a signal.

Runs start in a session of their own (so a timeout can kill the launch's process group, and a
Ctrl-C on the terminal reaches only the harness, which then stops the run itself). The price is
that nothing would stop them if the harness died without cleaning up; Linux's
PR_SET_PDEATHSIG closes that gap: the kernel sends the chosen signal to the child when the
thread that started it exits. The tie is not inherited by the child's own children: an
mpirun is sent SIGTERM rather than SIGKILL, so that it can still take down its ranks, on other
hosts too; on this host the guard (guard.py) ends them at once, where mpirun alone takes about a
second (measured, docs/reliability.md).

Only the thread that calls popen() counts as the parent: the harness starts runs from its
main thread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys

from taskbench.process import leftovers

PR_SET_PDEATHSIG = 1

_prctl = None
if sys.platform.startswith("linux"):
    try:
        _prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
        _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        _prctl.restype = ctypes.c_int
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        _prctl = None


def supported() -> bool:
    return _prctl is not None


def _tie_to(parent: int, death_signal: int):
    def tie() -> None:  # runs in the child between fork and exec: no allocation-heavy work
        if _prctl(PR_SET_PDEATHSIG, death_signal, 0, 0, 0) != 0:
            os._exit(127)
        # The parent may have died between fork and prctl: then the tie came too late.
        if os.getppid() != parent:
            os._exit(127)
    return tie


def popen(argv: list[str], death_signal: int = signal.SIGKILL, **kwargs) -> subprocess.Popen:
    """subprocess.Popen(argv, **kwargs) whose child receives `death_signal` when we die; an srun
    gets SIGTERM, which ends its job step on every node (SIGKILL would leave it, leftovers.py)."""
    if _prctl is not None:
        death_signal = leftovers.death_signal(argv, death_signal)
        kwargs["preexec_fn"] = _tie_to(os.getpid(), int(death_signal))
    return subprocess.Popen(argv, **kwargs)
