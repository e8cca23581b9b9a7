"""The Dask cluster the `dask` launcher (launch/dask.py) starts for a run, with Dask's own `dask
scheduler` and `dask worker` commands, as its users start them by hand or in a batch job.

Its starter, build/libexec/taskbench/dask_cluster -workers N -threads T [-hosts FILE] -- SYSTEM
[FLAGS...] (main() here), starts a scheduler and N worker processes (--workers, default: one per
core) of T threads each (--threads-per-rank, default 1) on 127.0.0.1; or, with --hosts, the
scheduler on the first host and the workers on every host (default: one per core of each), each
through its host's start method and bound to its address. It runs the system attached to them
(`-scheduler ADDRESS -workers N`) and stops them after it. It ends as the run ended: the
system's own status; or, when a process of the cluster died during the run, the dead worker's:
status 3 after its failed validation (its own line repeated last, as the reason), its signal
after a kill (named on the last line), else status 1 naming it. The dask_distributed system run
alone (`-workers N`) starts the same DaskCluster itself.

Workers run without a nanny: a nanny restarts a dead worker and keeps its exit status to itself,
but here a worker's death must end the run with that status (3 after a validation failure,
which the core ends with _exit; the signal of a kill), which only the worker's parent sees."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from taskbench.clusters.attached import run_attached, starter_arguments, wait_either
from taskbench.clusters.base import POLL_SECONDS, ClusterError, EngineCluster
from taskbench.hosts.description import Cluster, Host

__all__ = ["ClusterError", "DaskCluster"]  # ClusterError is the one every engine's cluster raises

HOST = "127.0.0.1"
# Dask logs every start and stop at INFO: only its errors reach the run's stderr.
QUIET = {"DASK_LOGGING__DISTRIBUTED": "error"}
SETTLE_SECONDS = 2.0  # after a run failed: how long a cluster process's death may take to show
VALIDATION_EXIT = 3


class DaskCluster(EngineCluster):
    """relay: the processes' output passes through this process, which keeps each one's last
    `taskbench: ` line (last_message), so that a supervisor can repeat a dead worker's reason
    after whatever else was printed meanwhile; else it goes to this process's stderr."""
    ENGINE = "Dask"

    def __init__(self, workers: int, threads: int, python: str = sys.executable, relay: bool = False,
                 hosts: Cluster | None = None):
        super().__init__(hosts)  # roles "scheduler", "worker-K"
        self.workers, self.threads, self.python, self.relay = workers, threads, python, relay
        self.scheduler_file = self.folder / "scheduler.json"

    def _spawn(self, role: str, module: str, args: list[str], host: Host | None) -> None:
        # Every Dask server runs an HTTP server (health, metrics) that --no-dashboard leaves on,
        # on 0.0.0.0 unless told otherwise (the scheduler's on 8787): here, its host's address.
        address = host.address if host else HOST
        self.spawn(role, [self.python, "-m", module, "--host", address, "--no-dashboard", "--dashboard-address",
                          f"{address}:0", *args], host, QUIET, read=self.relay, echo=self.relay)

    def _worker(self, k: int, host: Host | None, scheduler: list[str]) -> None:
        # No memory limit: a benchmark's outputs must never be spilled to disk or paused on.
        local = [] if host else ["--local-directory", str(self.folder)]
        self._spawn(f"worker-{k}", "distributed.cli.dask_worker", [*scheduler, "--nthreads", str(self.threads),
                    "--no-nanny", "--memory-limit", "0", "--name", f"worker-{k}", *local], host)

    def start(self) -> str:
        """Starts the scheduler and returns its address once it listens; here, every worker at
        once beside it (they wait for the scheduler file), across hosts each worker on its host
        once the address is known (the file is not seen there at once). The caller waits for the
        workers (Client.wait_for_workers): they are ready when the scheduler has them."""
        first = self.hosts.hosts[0] if self.hosts else None
        self._spawn("scheduler", "distributed.cli.dask_scheduler", ["--port", "0", "--scheduler-file",
                                                                     str(self.scheduler_file)], first)
        if first is None:
            for k in range(self.workers):
                self._worker(k, None, ["--scheduler-file", str(self.scheduler_file)])
        address = self.wait_for("scheduler", self._address)
        if first is not None:
            for k, host in enumerate(self.worker_hosts()):
                self._worker(k, host, [address])
        return address

    def worker_hosts(self) -> list[Host]:
        """The host of each worker: the hosts in turn, each up to its cores, then round again."""
        slots = self.hosts.slots()
        return [slots[k % len(slots)] for k in range(self.workers)]

    def _address(self) -> str | None:
        try:
            return json.loads(self.scheduler_file.read_text())["address"]
        except (OSError, ValueError, KeyError):  # not written yet, or half written
            return None

    def exit_codes(self, settle: float = 1.0) -> dict[int, int | None]:
        """pid -> exit status of every process that has ended (within `settle` seconds for
        the first: a worker's death is seen by the scheduler as its socket closes, a moment
        before its parent can collect its status)."""
        deadline = time.monotonic() + settle
        while not self.dead() and time.monotonic() < deadline:
            time.sleep(0.01)
        return {p.pid: p.returncode for p in self.processes.values() if p.poll() is not None}


# ---- the starter ----

def report_death(cluster: DaskCluster, role: str, pid: int, code: int) -> int:
    """The line that says which cluster process died and how; returns the status to end with."""
    if code == VALIDATION_EXIT:
        message = cluster.last_message(role) or f"taskbench: the Dask {role} (pid {pid}) failed validation"
        sys.stderr.write(message + "\n")
        return VALIDATION_EXIT
    if code < 0:
        sys.stderr.write(f"taskbench: worker process {pid} was killed by {signal.Signals(-code).name}"
                         f" (the Dask {role})\n")
        return code
    sys.stderr.write(f"taskbench: the Dask {role} (pid {pid}) exited with status {code} during the run\n")
    return 1


def supervise(cluster: DaskCluster, program: subprocess.Popen) -> int:
    wait_either(cluster, program)
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
    args = starter_arguments(argv, "dask_cluster", "starts a Dask cluster, runs the system attached to it, stops it",
                             "a cluster description: the scheduler on its first host, the workers on every host",
                             workers="worker processes", threads="threads per worker process")
    cluster = DaskCluster(args.workers, args.threads, relay=True, hosts=args.cluster)
    return run_attached(cluster, lambda address: [*args.program, "-scheduler", address, "-workers", str(args.workers)],
                        supervise)
