"""What the cluster launchers (dask_cluster_main.py, spark_cluster_main.py) share: start the
cluster, run the system attached to it, stop the cluster however the run ended, and end as the
run ended."""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable


def die_like(code: int) -> None:
    """Exits with the status `code`, a negative one by dying of that signal."""
    sys.stdout.flush()
    sys.stderr.flush()
    if code < 0:
        if -code not in (signal.SIGKILL, signal.SIGSTOP):  # the two that have no handler
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def run_attached(cluster, start_error: type, argv_for: Callable[[str], list[str]], supervise) -> int:
    """cluster.start() returns the address that argv_for turns into the system's command line;
    supervise(cluster, process) returns the status to end with. The cluster is stopped in every
    case, SIGTERM and SIGHUP included (through the finally)."""
    from taskbench.launch import tied
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, _: sys.exit(128 + number))
    try:
        try:
            address = cluster.start()
        except start_error as exc:
            sys.stderr.write(f"taskbench: {exc}\n")
            return 1
        status = supervise(cluster, tied.popen(argv_for(address), signal.SIGKILL))
    finally:
        cluster.stop()
    die_like(status)
    return status
