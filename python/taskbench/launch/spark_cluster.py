"""A Spark standalone cluster on 127.0.0.1: one master and one worker process (JVMs started with
pyspark's own `spark-class`, as Spark's users start them by hand or from sbin/), the worker
offering N cores; stopped, with every executor and Python worker they started, after the run.
Given a cluster description (hosts.py), the master runs on its first host and one worker on
every host, offering that host's cores, each started through its host's start method and bound
to its address (SPARK_LOCAL_IP binds the web UIs and the executors there too).

The worker starts executor JVMs, and they start Spark's Python workers: none of them are this
process's children. Every process of the cluster carries a marker of its own in its environment
(CLUSTER_VARIABLE; executors inherit the worker's environment), so stop() finds and kills them
all (leftovers.py), also after a failed run; across hosts, on each host through its start
method, as the processes there are not always this machine's."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from taskbench.launch import leftovers, tied
from taskbench.launch.hosts import Cluster as Hosts
from taskbench.launch.hosts import Host
from taskbench.launch.local_cluster import ClusterError, LocalCluster, kill_marked_on_hosts

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
    def __init__(self, cores: int, memory: str = "4g", hosts: Hosts | None = None):
        super().__init__("taskbench-spark-")  # roles "master", "worker" (across hosts: "worker-K")
        self.cores, self.memory, self.hosts = cores, memory, hosts
        if hosts is not None:
            # The workers' folders must exist on their hosts: beside the description, on the
            # file system the hosts share (docs/clusters.md).
            self._folder.cleanup()
            self._folder = tempfile.TemporaryDirectory(prefix=".taskbench-spark-", dir=hosts.path.parent)
        self.marker = leftovers.new_marker()
        self._lines: dict[str, list[str]] = {}
        self._seen = threading.Condition()

    def _environment(self, address: str) -> dict:
        """What Spark's processes on the host of `address` need beyond the caller's environment."""
        return {**leftovers.KEEP_ENVIRON, "SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": address,
                "PYSPARK_PYTHON": sys.executable, "SPARK_LOG_DIR": self._folder.name,
                "SPARK_WORKER_DIR": self._folder.name, CLUSTER_VARIABLE: self.marker}

    def _spawn(self, role: str, argv: list[str], host: Host | None = None) -> None:
        own = self._environment(host.address if host else HOST)
        command = [str(spark_home() / "bin" / "spark-class"), *argv]
        if host is not None:  # on the command line: ssh drops the environment
            command = host.command(["env", *(f"{k}={v}" for k, v in own.items()), *command])
        # Tied: the JVM (or the ssh client that holds it) dies with this process however it
        # ends; Spark logs to stderr, read here.
        process = tied.popen(command, signal.SIGKILL, env=dict(os.environ, **own), stdin=subprocess.DEVNULL,
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
        if self.hosts is not None:
            return self._start_on_hosts()
        self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", HOST, "--port", "0",
                               "--webui-port", "0"])
        url = self._wait_for("master", lambda line: (m := MASTER_URL.search(line)) and m.group(1))
        self._spawn("worker", ["org.apache.spark.deploy.worker.Worker", "--host", HOST, "--cores",
                               str(self.cores), "--memory", self.memory, "--webui-port", "0",
                               "--work-dir", self._folder.name, url])
        self._wait_for("worker", lambda line: WORKER_READY in line)
        return url

    @property
    def driver_address(self) -> str:
        """Where the driver binds, and the executors reach it: the first host's address."""
        return self.hosts.hosts[0].address if self.hosts is not None else HOST

    def _start_on_hosts(self) -> str:
        """The master on the first host, then one worker on every host at once, each offering
        its host's cores; the driver runs here, so here must be the first host."""
        first = self.hosts.hosts[0]
        try:
            with socket.socket(socket.AF_INET6 if ":" in first.address else socket.AF_INET) as probe:
                probe.bind((first.address, 0))
        except OSError as exc:
            raise ClusterError(f"the Spark driver runs where taskbench runs and binds the first host's address "
                               f"({first.name}, {first.address}), which is not this machine's ({exc.strerror}): "
                               f"run taskbench on {first.name}") from None
        # Its REST submission server would listen on a fixed port: nothing here submits through it.
        self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", first.address, "--port", "0",
                               "--webui-port", "0", "--properties-file", str(self._master_properties())], first)
        url = self._wait_for("master", lambda line: (m := MASTER_URL.search(line)) and m.group(1))
        for k, host in enumerate(self.hosts.hosts):
            work = Path(self._folder.name) / f"worker-{k}"
            self._spawn(f"worker-{k}", ["org.apache.spark.deploy.worker.Worker", "--host", host.address,
                                        "--cores", str(host.cores), "--memory", self.memory, "--webui-port", "0",
                                        "--work-dir", str(work), url], host)
        for k in range(len(self.hosts)):
            self._wait_for(f"worker-{k}", lambda line: WORKER_READY in line)
        return url

    def _master_properties(self) -> Path:
        path = Path(self._folder.name) / "master.properties"
        path.write_text("spark.master.rest.enabled false\n")
        return path

    def _stop_the_rest(self) -> None:
        """Every executor and Python worker the master and the workers started (found by the
        marker): nothing in them is worth a graceful close either."""
        leftovers.kill_all(CLUSTER_VARIABLE, self.marker)
        if self.hosts is not None:
            self._stop_on_hosts()

    def _stop_on_hosts(self) -> None:
        """The marked processes on every host (its executors exit once their driver is gone, if
        a host does not answer)."""
        path = os.environ.get("PYTHONPATH")  # where the killer finds taskbench (ssh drops the environment)
        kill_marked_on_hosts(self.hosts.hosts, CLUSTER_VARIABLE, self.marker, [f"PYTHONPATH={path}"] if path else [])
