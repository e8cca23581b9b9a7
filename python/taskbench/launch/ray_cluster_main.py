"""build/bin/ray_cluster -hosts FILE -- SYSTEM [FLAGS...]: the harness's `ray` launcher across
hosts (launch/ray.py). Starts a Ray cluster over the hosts of a cluster description
(ray_cluster.py), runs the system's driver here attached to it (`-address HEAD:PORT`), and stops
every process of the cluster after it, however the run ended.

It ends as the run ended: the system's own status (3 with the core's line after a failed
validation, which the driver prints); or status 1 naming the host whose Ray node died during
the run. A timeout or the harness's death ends this process and its tied children with it."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from taskbench.launch.attached_run import run_attached
from taskbench.launch.hosts import read_cluster
from taskbench.launch.ray_cluster import Cluster, ClusterError

POLL_SECONDS = 0.05


def supervise(cluster: Cluster, program) -> int:
    while program.poll() is None and not cluster.dead():
        time.sleep(POLL_SECONDS)
    if program.poll() is None:  # a node went first: the driver would wait on its tasks forever
        host, pid, code = cluster.dead()
        program.kill()
        program.wait()
        said = cluster.last_lines(host)
        sys.stderr.write(f"taskbench: the Ray node on {host} (pid {pid}) exited with status {code} during the run"
                         f"{': ' + said if said else ''}\n")
        return 1
    return program.returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ray_cluster", description=__doc__.splitlines()[0])
    parser.add_argument("-hosts", required=True, help="a cluster description: the head on its first host, a "
                                                      "node on every other (docs/clusters.md)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- SYSTEM [FLAGS...]")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("needs -hosts FILE and -- SYSTEM [FLAGS...]")
    try:
        cluster = Cluster(read_cluster(Path(args.hosts)))
    except OSError as exc:  # the run's token goes beside the description, on the hosts' file system
        sys.stderr.write(f"taskbench: cannot write the Ray cluster's token beside {args.hosts}: {exc}\n")
        return 1
    os.environ.update(cluster.auth)  # the driver's, which it inherits
    return run_attached(cluster, ClusterError, lambda address: [*program, "-address", address], supervise)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
