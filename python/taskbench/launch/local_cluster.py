"""What the clusters the harness starts on this machine share (dask_cluster.py, spark_cluster.py):
their processes by role and the scratch folder they share; watched while a run uses them, and
stopped, everything they started included, however the run ended."""

from __future__ import annotations

import subprocess
import tempfile


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
        (their scratch folder goes with them); it ends them at once, in every state."""
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
        for process in self.processes.values():
            process.wait()
        self._stop_the_rest()
        self._folder.cleanup()

    def _stop_the_rest(self) -> None:
        """Ends what the cluster's processes started that are not this process's children: an
        engine whose servers start processes of their own overrides it."""

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
