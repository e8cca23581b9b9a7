"""The `loopback` launcher: the system alone in a network namespace whose only interface is
loopback (`unshare -n`, then `ip link set lo up`), for engines that bind or probe the host's
outward interface whatever they are told (Ray looks for its node address by connecting
towards a public DNS server, and its servers listen on every interface). There, nothing it
starts can reach or be reached from beyond this host. Needs root (CAP_SYS_ADMIN and
CAP_NET_ADMIN). The mpirun launcher uses it too, where it can (mpirun.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from taskbench.launch.local import command as local_command
from taskbench.launch.common import LaunchOptions, LaunchCommand

TOOLS = ("unshare", "ip")
# In the new namespace: bring loopback up, then become the system (exec keeps the pid's tie).
INSIDE = 'ip link set lo up && exec "$@"'


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def can_isolate() -> bool:
    """Whether this process can make such a namespace: the tools, and the capabilities of
    `unshare --net` (CAP_SYS_ADMIN, bit 21) and `ip link set lo up` (CAP_NET_ADMIN, bit 12)."""
    if missing_tools():
        return False
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            capabilities = int(line.split()[1], 16)
            return all(capabilities >> bit & 1 for bit in (12, 21))
    return False



def why_not_here(system) -> str:
    if missing_tools():
        return (f"{' and '.join(missing_tools())} not found on PATH (util-linux, iproute2): "
                "the loopback launcher needs them")
    return ""


def wrap(argv: list[str]) -> list[str]:
    """argv run in a fresh network namespace with only loopback, up."""
    return [shutil.which("unshare") or "unshare", "--net", "--", "sh", "-c", INSIDE, "sh", *argv]


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    launched = local_command(system, flags, options)  # the same checks and flags as `local`
    launched.argv = wrap(launched.argv)
    return launched
