"""A Spark standalone cluster on 127.0.0.1: one master and one worker process (JVMs started with
pyspark's own `spark-class`, as Spark's users start them by hand or from sbin/), the worker
offering N cores; stopped, with every executor and Python worker they started, after the run.

The worker starts executor JVMs, and they start Spark's Python workers: none of them are this
process's children. Every process of the cluster carries a marker of its own in its environment
(CLUSTER_VARIABLE; executors inherit the worker's environment), so stop() finds and kills them
all (leftovers.py), also after a failed run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from taskbench.launch import leftovers, tied
from taskbench.launch.local_cluster import ClusterError, LocalCluster

__all__ = ["Cluster", "ClusterError", "spark_home"]  # ClusterError is the one all local clusters raise

HOST = "127.0.0.1"
START_SECONDS = 180.0  # two JVMs on a loaded 2-core machine
CLUSTER_VARIABLE = "TASKBENCH_SPARK_CLUSTER"
MASTER_URL = re.compile(r"Starting Spark master at (spark://\S+)")
WORKER_READY = "Successfully registered with master"


def spark_home() -> Path:
    try:
        import pyspark
    except ImportError as exc:
        raise ClusterError(f"pyspark is not installed for {sys.executable}: "
                           "pip install 'taskbench[spark]' (or scripts/install-large-engines.sh)") from exc
    return Path(pyspark.__file__).resolve().parent


class Cluster(LocalCluster):
    def __init__(self, cores: int, memory: str = "4g"):
        super().__init__("taskbench-spark-")  # roles "master", "worker"
        self.cores, self.memory = cores, memory
        self.marker = leftovers.new_marker()
        self._lines: dict[str, list[str]] = {}
        self._seen = threading.Condition()

    def _environment(self) -> dict:
        home = spark_home()
        return dict(os.environ, **leftovers.KEEP_ENVIRON, SPARK_HOME=str(home), SPARK_LOCAL_IP=HOST,
                    PYSPARK_PYTHON=sys.executable,
                    SPARK_LOG_DIR=self._folder.name, SPARK_WORKER_DIR=self._folder.name,
                    **{CLUSTER_VARIABLE: self.marker})

    def _spawn(self, role: str, argv: list[str]) -> None:
        command = [str(spark_home() / "bin" / "spark-class"), *argv]
        # Tied: the JVM dies with this process however it ends; Spark logs to stderr, read here.
        process = tied.popen(command, signal.SIGKILL, env=self._environment(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        self.processes[role] = process
        self._lines[role] = []
        threading.Thread(target=self._read, args=(role, process), daemon=True).start()

    def _read(self, role: str, process: subprocess.Popen) -> None:
        for line in process.stderr:
            with self._seen:
                self._lines[role].append(line.rstrip("\n"))
                self._seen.notify_all()

    def _wait_for(self, role: str, found) -> str:
        """The first value `found` returns for a line of `role`'s log, or ClusterError."""
        deadline = time.monotonic() + START_SECONDS
        with self._seen:
            while time.monotonic() < deadline:
                for line in self._lines[role]:
                    value = found(line)
                    if value:
                        return value
                process = self.processes[role]
                if process.poll() is not None:
                    tail = " | ".join(self._lines[role][-3:])
                    raise ClusterError(f"the Spark {role} (pid {process.pid}) exited with status "
                                       f"{process.returncode} while the cluster started: {tail}")
                self._seen.wait(0.2)
        raise ClusterError(f"the Spark {role} did not start within {START_SECONDS:g} s")

    def start(self) -> str:
        """Starts the master, then the worker; returns the master's URL once the worker has
        registered with it."""
        self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", HOST, "--port", "0",
                               "--webui-port", "0"])
        url = self._wait_for("master", lambda line: (m := MASTER_URL.search(line)) and m.group(1))
        self._spawn("worker", ["org.apache.spark.deploy.worker.Worker", "--host", HOST, "--cores",
                               str(self.cores), "--memory", self.memory, "--webui-port", "0",
                               "--work-dir", self._folder.name, url])
        self._wait_for("worker", lambda line: WORKER_READY in line)
        return url

    def _stop_the_rest(self) -> None:
        """Every executor and Python worker the master and the worker started (found by the
        marker): nothing in them is worth a graceful close either."""
        leftovers.kill_all(CLUSTER_VARIABLE, self.marker)
