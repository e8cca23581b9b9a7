"""What the clusters the harness starts on this machine share (dask_cluster.py, spark_cluster.py):
their processes by role and the scratch folder they share; watched while a run uses them, and
stopped, everything they started included, however the run ended."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time

from taskbench.launch import leftovers

STOP_SECONDS = 15.0  # a host's start method (ssh) that hangs must not hang the run's end
# Run on each host at the end: the cluster's processes there, found by the marker, by pid.
KILL_MARKED = "import sys; from taskbench.launch.leftovers import kill_all; kill_all(*sys.argv[1:])"


def kill_marked_on_hosts(hosts, variable: str, marker: str, env_args: list[str] = ()) -> None:
    """The processes holding variable=marker on every host, killed there by pid, all hosts at
    once; a host that does not answer within STOP_SECONDS is left to its own end. env_args:
    `env` assignments the killer needs there (its PYTHONPATH: ssh drops the environment)."""
    killers = [subprocess.Popen(host.command(["env", *env_args, sys.executable, "-c", KILL_MARKED, variable, marker]),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for host in hosts]
    deadline = time.monotonic() + STOP_SECONDS
    for killer in killers:
        try:
            killer.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            killer.kill()
            killer.wait()


class ClusterError(RuntimeError):
    """A cluster process that did not start, or ended while the cluster started."""


class LocalCluster:
    def __init__(self, scratch_prefix: str):
        self.processes: dict[str, subprocess.Popen] = {}  # role -> process
        self._folder = tempfile.TemporaryDirectory(prefix=scratch_prefix)

    def dead(self) -> tuple[str, int, int] | None:
        """(role, pid, exit status) of the first cluster process found ended, or None."""
        for role, process in self.processes.items():
            if process.poll() is not None:
                return role, process.pid, process.returncode
        return None

    def stop(self) -> None:
        """SIGKILL: the run is over and nothing in these processes is worth a graceful close
        (their scratch folder goes with them); it ends them at once, in every state. (An srun
        that started one on a Slurm node gets SIGTERM: leftovers.stop_started.)"""
        leftovers.stop_started(list(self.processes.values()))
        self._stop_the_rest()
        self._folder.cleanup()

    def _stop_the_rest(self) -> None:
        """Ends what the cluster's processes started that are not this process's children: an
        engine whose servers start processes of their own overrides it."""

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
