"""The remote-shell agent that MPI launchers use to start their daemons on the hosts of a
cluster description: `python -m taskbench.launch.host_agent HOST WORDS...` runs WORDS (joined
into one shell line, as ssh does) on HOST through the start method the description gives it.
The description is the one in TASKBENCH_HOSTS, which the launcher sets. HOST is a name or an
address of the description. Open MPI: `--mca plm_rsh_agent "PYTHON -m taskbench.launch.host_agent"`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from taskbench.launch.hosts import HOSTS_VARIABLE, read_cluster


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("host_agent: usage: host_agent HOST COMMAND...", file=sys.stderr)
        return 255
    description = os.environ.get(HOSTS_VARIABLE)
    if not description:
        print(f"host_agent: {HOSTS_VARIABLE} names no cluster description", file=sys.stderr)
        return 255
    cluster = read_cluster(Path(description))
    host = cluster.find(argv[0])
    if host is None:
        print(f"host_agent: no host '{argv[0]}' in {cluster.path}", file=sys.stderr)
        return 255  # ssh's status for a host it cannot reach
    command = host.shell(" ".join(argv[1:]))
    os.execvp(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
