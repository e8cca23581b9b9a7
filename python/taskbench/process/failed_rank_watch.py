"""Waiting for a launch across hosts that may not end when one of its ranks fails.

MPICH 4.0's Hydra, across hosts, leaves a job running after a rank on another host failed
validation (measured on the test cluster: the rank's line reached mpiexec, its proxy ended with
status 0, and the other ranks waited for it in their last collective until the run's timeout).
The core's line says the run is over: a launch still running GRACE_SECONDS after it is ended
here, and reported as the validation failure it was. Launchers that end by themselves (Open MPI,
the engines' starters) do so well within the grace."""

from __future__ import annotations

import subprocess
import threading
import time

VALIDATION_LINE = "taskbench: validation failed"
GRACE_SECONDS = 5.0
POLL_SECONDS = 0.05


def communicate(proc: subprocess.Popen, timeout: float | None, end,
                lost=lambda: None) -> tuple[str, str, str | None]:
    """(stdout, stderr, verdict) of proc, read as it runs; verdict: None when it ended by itself,
    "validation" when a rank's line came and `end()` ended it after the grace, "timeout" when
    `end()` ended it at the timeout, or the line `lost()` returned once it said a host was lost
    (hosts/slurm.py's NodeWatch), after which `end()` ended it."""
    streams = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda s=stream, k=key: streams[k].extend(iter(s.readline, "")), daemon=True)
               for stream, key in ((proc.stdout, "out"), (proc.stderr, "err"))]
    for reader in readers:
        reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    failed_at, verdict = None, None
    while proc.poll() is None:
        now = time.monotonic()
        if failed_at is None and any(VALIDATION_LINE in line for line in list(streams["err"])):
            failed_at = now
        if deadline is not None and now > deadline:
            verdict = "timeout"
        elif lost() is not None:
            verdict = lost()
        elif failed_at is not None and now - failed_at > GRACE_SECONDS:
            verdict = "validation"
        if verdict is not None:
            end()
            proc.wait()
            break
        time.sleep(POLL_SECONDS)
    for reader in readers:
        reader.join(5.0)  # what a stray process that still holds the pipes writes is lost
    return "".join(streams["out"]), "".join(streams["err"]), verdict
