"""The Spark standalone cluster the `spark` launcher (launch/spark.py) starts for a run: a master
and a worker, JVMs started with pyspark's own `spark-class` in the foreground (as Spark's sbin/
scripts start them, without their daemonizing: the harness must hold their pids).

Its starter, build/libexec/taskbench/spark_cluster -workers N [-hosts FILE] -- SYSTEM [FLAGS...]
(main() here), starts the master and a worker of N cores (--workers, default: one per core) on
127.0.0.1; or, with --hosts, the master on the first host and a worker on every host, each
offering its host's cores, started through its host's start method and bound to its address
(SPARK_LOCAL_IP binds the web UIs and the executors there too), the driver here, which must be
the first host (--workers then caps the cores the run takes, default: all the hosts'). It runs
the system attached to it (`-master URL -worker N [-bind ADDRESS]`) and stops the cluster after
it, however the run ended. It ends as the run ended: the system's own status (3 with the core's
line after a failed validation, which the system prints); or status 1 naming the master or
worker that died during the run.

The worker starts executor JVMs, and they start Spark's Python workers: none of them are this
process's children. They inherit the cluster's marker, by which stop() finds and kills them all
(process/leftovers.py), here and on every host, also after a failed run."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from taskbench.clusters.attached import run_attached, starter_arguments, supervise
from taskbench.clusters.base import ClusterError, EngineCluster
from taskbench.hosts.description import Cluster, Host

__all__ = ["ClusterError", "SparkCluster", "spark_home"]

HOST = "127.0.0.1"
MASTER_URL = r"Starting Spark master at (spark://\S+)"
WORKER_READY = r"Successfully registered with master"


def spark_home() -> Path:
    try:
        import pyspark
    except ImportError as exc:
        # Worded without the package's name, which is also a system's (test_no_system_names).
        raise ClusterError(f"Spark's Python package is not installed for {sys.executable}: "
                           "pip install 'taskbench[spark]' (or scripts/install-large-engines.sh)") from exc
    return Path(pyspark.__file__).resolve().parent


class SparkCluster(EngineCluster):
    ENGINE = "Spark"
    START_SECONDS = 180.0  # two JVMs on a loaded 2-core machine
    STARTS_OTHERS = True

    def __init__(self, cores: int, memory: str = "4g", hosts: Cluster | None = None):
        super().__init__(hosts)  # roles "master", "worker" (across hosts: "worker-K")
        self.cores, self.memory = cores, memory

    @property
    def driver_address(self) -> str:
        """Where the driver binds, and the executors reach it: the first host's address."""
        return self.hosts.hosts[0].address if self.hosts is not None else HOST

    def _spawn(self, role: str, server: str, args: list[str], host: Host | None) -> None:
        """A master or worker JVM; what it logs (to stderr) is kept here."""
        address = host.address if host else HOST
        env = {"SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": address, "PYSPARK_PYTHON": sys.executable,
               "SPARK_LOG_DIR": str(self.folder), "SPARK_WORKER_DIR": str(self.folder)}
        self.spawn(role, [str(spark_home() / "bin" / "spark-class"), f"org.apache.spark.deploy.{server}", "--host",
                          address, "--webui-port", "0", *args], host, env)

    def start(self) -> str:
        """Starts the master, then the workers (across hosts all at once); returns the master's
        URL once every worker has registered with it."""
        first = self.hosts.hosts[0] if self.hosts else None
        if first is not None:
            self._check_driver_here(first)
        # Its REST submission server would listen on a fixed port: nothing here submits through it.
        properties = self.folder / "master.properties"
        properties.write_text("spark.master.rest.enabled false\n")
        self._spawn("master", "master.Master", ["--port", "0", "--properties-file", str(properties)], first)
        url = self.wait_for("master", lambda: (m := self.line("master", MASTER_URL)) and m.group(1))
        workers = {"worker": (None, self.cores, self.folder)} if first is None else \
            {f"worker-{k}": (host, host.cores, self.folder / f"worker-{k}") for k, host in enumerate(self.hosts.hosts)}
        for role, (host, cores, work) in workers.items():
            self._spawn(role, "worker.Worker", ["--cores", str(cores), "--memory", self.memory, "--work-dir",
                                                str(work), url], host)
        for role in workers:
            self.wait_for(role, lambda: self.line(role, WORKER_READY))
        return url

    @staticmethod
    def _check_driver_here(first: Host) -> None:
        """The driver runs here and binds the first host's address: here must be the first host."""
        try:
            with socket.socket(socket.AF_INET6 if ":" in first.address else socket.AF_INET) as probe:
                probe.bind((first.address, 0))
        except OSError as exc:
            raise ClusterError(f"the Spark driver runs where taskbench runs and binds the first host's address "
                               f"({first.name}, {first.address}), which is not this machine's ({exc.strerror}): "
                               f"run taskbench on {first.name}") from None


# ---- the starter ----

def main(argv: list[str]) -> int:
    args = starter_arguments(argv, "spark_cluster", "starts a Spark standalone cluster, runs the system attached to "
                             "it, stops it", "a cluster description: the master on its first host, a worker on "
                             "every host", workers="cores of the Spark worker")
    cluster = SparkCluster(args.workers, hosts=args.cluster)
    bind = ["-bind", cluster.driver_address] if args.cluster else []
    return run_attached(cluster, lambda url: [*args.program, "-master", url, "-worker", str(args.workers), *bind],
                        supervise)
