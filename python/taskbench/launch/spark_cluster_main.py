"""build/bin/spark_cluster -workers N [-hosts FILE] -- SYSTEM [FLAGS...]: the harness's `spark`
launcher (launch/spark.py). Starts a Spark standalone master and a worker of N cores on
127.0.0.1, or the master on the first host of a cluster description and a worker on every host
(spark_cluster.py), runs the system attached to it (`-master URL -worker N -bind ADDRESS`), and
stops the cluster, its executors and their Python workers after it, however the run ended.

It ends as the run ended: the system's own status (3 with the core's line after a failed
validation, which the system prints); or status 1 naming the master or worker that died during
the run. A timeout or the harness's death ends this process and its tied children with it, and
the harness's marker finds the executors (runner.py)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from taskbench.launch.attached_run import run_attached
from taskbench.launch.hosts import read_cluster
from taskbench.launch.spark_cluster import Cluster, ClusterError

POLL_SECONDS = 0.05


def supervise(cluster: Cluster, program) -> int:
    while program.poll() is None and not cluster.dead():
        time.sleep(POLL_SECONDS)
    if program.poll() is None:  # the cluster lost its master or worker first
        role, pid, code = cluster.dead()
        program.kill()
        program.wait()
        sys.stderr.write(f"taskbench: the Spark {role} (pid {pid}) exited with status {code} during the run\n")
        return 1
    return program.returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spark_cluster", description=__doc__.splitlines()[0])
    parser.add_argument("-workers", type=int, required=True, help="cores of the Spark worker")
    parser.add_argument("-hosts", help="a cluster description: the master on its first host, a worker on "
                                       "every host (docs/clusters.md)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- SYSTEM [FLAGS...]")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program or args.workers < 1:
        parser.error("needs -workers N >= 1 and -- SYSTEM [FLAGS...]")
    cluster = Cluster(args.workers, hosts=read_cluster(Path(args.hosts)) if args.hosts else None)
    bind = ["-bind", cluster.driver_address] if args.hosts else []
    return run_attached(cluster, ClusterError,
                        lambda url: [*program, "-master", url, "-worker", str(args.workers), *bind], supervise)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
