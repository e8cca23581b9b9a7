"""The remote-shell agent that MPI launchers use to start their daemons on the hosts of a
cluster description: `python -m taskbench.hosts.agent HOST WORDS...` runs WORDS (joined
into one shell line, as ssh does) on HOST through the start method the description gives it.
The description is the one in TASKBENCH_HOSTS, which the launcher sets. HOST is a name or an
address of the description. Open MPI: `--mca plm_rsh_agent "PYTHON -m taskbench.hosts.agent"`;
Hydra (MPICH): `-launcher ssh -launcher-exec` build/libexec/taskbench/host_agent, which runs it;
charmrun: `++remote-shell` (it passes ssh's options first, which the host's start method replaces).

It stays beside the launcher, as an ssh client does, while the command runs there: when the
host dies (its processes killed, its ssh connection dropped) it says so in one line, naming the
host, which the launcher's own report does not (Open MPI: "ORTE was unable to reliably start
one or more daemons"). Signals it gets go on to the command. A call it cannot read (a flag it
does not take, no command) is one usage line and status 2; a host it cannot reach, status 255,
ssh's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.hosts.description import HOSTS_VARIABLE, read_cluster

LOST_PREFIX = "host_agent: "  # the runner reads the line after it as the run's reason
SSH_FAILED = 255  # ssh's status when the connection fails
USAGE = "host_agent: usage: host_agent [-x] HOST COMMAND... (HOST: a name or address in $TASKBENCH_HOSTS)"
# MPICH's Hydra calls its launcher as ssh: `-x HOST COMMAND` (no X11 forwarding).
SSH_FLAGS_BEFORE_HOST = ("-x",)
# charmrun calls its remote shell as ssh: `HOST -l USER -o OPTION... COMMAND`.
RSH_OPTIONS = ("-l", "-o")


def command_words(words: list[str]) -> list[str]:
    """The command after the rsh-style options, which the host's own start method supersedes."""
    while len(words) > 2 and words[0] in RSH_OPTIONS:
        words = words[2:]
    return words


def main(argv: list[str]) -> int:
    while argv and argv[0] in SSH_FLAGS_BEFORE_HOST:
        argv = argv[1:]
    if len(argv) < 2 or argv[0].startswith("-"):  # no host name starts with '-': a flag it does not take
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    description = os.environ.get(HOSTS_VARIABLE)
    if not description:
        print(f"host_agent: {HOSTS_VARIABLE} names no cluster description", file=sys.stderr)
        return SSH_FAILED
    try:
        cluster = read_cluster(Path(description))
    except UserError as exc:
        print(f"host_agent: {exc}", file=sys.stderr)
        return SSH_FAILED
    host = cluster.find(argv[0])
    if host is None:
        print(f"host_agent: no host '{argv[0]}' in {cluster.path}", file=sys.stderr)
        return SSH_FAILED
    child = subprocess.Popen(host.shell(" ".join(command_words(argv[1:]))))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: child.send_signal(number))
    code = child.wait()
    lost = (code < 0 and -code == signal.SIGKILL) or (code == SSH_FAILED and host.start[0] == "ssh")
    if lost:
        print(f"{LOST_PREFIX}host {host.name} ({host.address}) stopped answering: its start command "
              f"({host.start[0]}) ended {'by SIGKILL' if code < 0 else 'with status 255'} (the host died, "
              "its processes were killed, or its network failed)", file=sys.stderr, flush=True)
    return SSH_FAILED if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
