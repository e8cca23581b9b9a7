"""build/bin/dask_cluster -workers N -threads T [-hosts FILE] -- SYSTEM [FLAGS...]: the harness's
`dask` launcher (launch/dask.py). Starts a Dask cluster on 127.0.0.1, or across the hosts of a
cluster description (dask_cluster.py), runs the system attached to it (`-scheduler ADDRESS
-workers N`), and stops the cluster after it.

It ends as the run ended: the system's own status; or, when a process of the cluster died
during the run, the dead worker's: status 3 after its failed validation (its own line repeated
last, as the reason), its signal after a kill (named on the last line), else status 1 naming it.
A timeout or the harness's death ends this process and its tied children (tied.py) with it."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from pathlib import Path

from taskbench.launch.attached_run import run_attached
from taskbench.launch.dask_cluster import Cluster, ClusterError
from taskbench.launch.hosts import read_cluster

POLL_SECONDS = 0.02
SETTLE_SECONDS = 2.0  # after a run failed: how long a cluster process's death may take to show
VALIDATION_EXIT = 3


def report_death(cluster: Cluster, role: str, pid: int, code: int) -> int:
    """The line that says which cluster process died and how; returns the status to end with."""
    if code == VALIDATION_EXIT:
        message = cluster.last_message(pid) or f"taskbench: the Dask {role} (pid {pid}) failed validation"
        sys.stderr.write(message + "\n")
        return VALIDATION_EXIT
    if code < 0:
        sys.stderr.write(f"taskbench: worker process {pid} was killed by {signal.Signals(-code).name}"
                         f" (the Dask {role})\n")
        return code
    sys.stderr.write(f"taskbench: the Dask {role} (pid {pid}) exited with status {code} during the run\n")
    return 1


def supervise(cluster: Cluster, program: subprocess.Popen) -> int:
    while program.poll() is None and not cluster.dead():
        time.sleep(POLL_SECONDS)
    if program.poll() == 0:
        return 0
    # Either may notice first: a dead worker makes the system fail, a failed system may
    # follow a death about to show.
    deadline = time.monotonic() + SETTLE_SECONDS
    while not cluster.dead() and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
    dead = cluster.dead()
    if program.poll() is None:
        program.kill()
    status = program.wait()
    return report_death(cluster, *dead) if dead else status


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dask_cluster", description=__doc__.splitlines()[0])
    parser.add_argument("-workers", type=int, required=True, help="worker processes")
    parser.add_argument("-threads", type=int, default=1, help="threads per worker process")
    parser.add_argument("-hosts", help="a cluster description: the scheduler on its first host, the workers "
                                       "on every host (docs/clusters.md)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- SYSTEM [FLAGS...]")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program or args.workers < 1 or args.threads < 1:
        parser.error("needs -workers N >= 1, -threads T >= 1 and -- SYSTEM [FLAGS...]")
    cluster = Cluster(args.workers, args.threads, relay=True,
                      hosts=read_cluster(Path(args.hosts)) if args.hosts else None)
    return run_attached(cluster, ClusterError,
                        lambda address: [*program, "-scheduler", address, "-workers", str(args.workers)], supervise)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
