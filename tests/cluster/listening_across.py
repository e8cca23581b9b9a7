"""What a run across the test hosts listens on: each of its processes (found by a marker in their
environment, wherever they run) is polled for listening sockets throughout a command run on the
first host, and each socket is checked against the host whose network namespace holds it.
test_listening_across_hosts.py checks every multi-host system this way; test_pyspark_across_hosts.py
checks Spark within its run on every host (a Spark cluster across hosts takes a minute to start).

A socket bound to every interface of a test host is reachable at that host's address only (a
test host has loopback and one link), so it passes too, but is listed: the engines that cannot be
told one address (Open MPI's out-of-band channel, Hydra's control port, Charm++'s netlrts layer,
Ray) are named here, and any other engine doing it fails."""
from __future__ import annotations

import ipaddress
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from cluster_helpers import REPO, SCRIPT

sys.path.insert(0, str(REPO / "tests" / "harness"))
from listening_sockets import descendants, is_loopback, listeners  # noqa: E402
from taskbench.process import leftovers  # noqa: E402

PROBE = "TASKBENCH_TEST_CLUSTER_LISTENING_PROBE"

# Engines measured binding every interface whatever they are told (docs/clusters.md): the
# commands whose sockets may be wildcards.
WILDCARD_BINDERS = {
    # Open MPI 4.1's out-of-band channel and its ranks' TCP transport: INADDR_ANY in its code
    # (btl_tcp_if_include and oob_tcp_if_include choose the networks it uses, not what it binds).
    "mpi_p2p": ("mpirun", "orted", "mpi_p2p"),
    "mpi_p2p_mpich": ("mpiexec",),  # Hydra 4.0's control port (its proxies and ranks inherit it)
    # Ray 2.60: its GCS, raylets, workers and driver have no setting for one address.
    "ray": ("gcs_server", "raylet", "ray::", "python"),
    "charm4py": ("charmrun", "charm4py", "python"),  # netlrts: no option to bind one address
}


@dataclass
class Watched:
    """A finished command, what its processes were seen listening on, and those of them still
    alive 5 s after it ended (killed since: the next test must not meet them)."""
    returncode: int
    stdout: str
    stderr: str
    seen: set
    looked_in: set  # the network namespaces its processes were seen in
    left: list[str]


def watched_run(cluster, argv: list[str], env: dict | None = None, timeout: float = 240) -> Watched:
    """argv on the cluster's first host, its listeners polled every 0.05 s until it ends (a rank
    on another host may live for a fraction of a second); killed after `timeout` seconds.
    Whatever it started is killed before this returns."""
    marker = leftovers.new_marker()
    command = [str(SCRIPT), "--dir", str(cluster.dir), "--prefix", cluster.prefix, "run", *argv]
    run = subprocess.Popen(command, env=dict(os.environ, **(env or {}), **{PROBE: marker}), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen, looked_in, left = set(), set(), []
    try:
        deadline = time.monotonic() + timeout
        while run.poll() is None and time.monotonic() < deadline:
            for pid in descendants(run.pid) | set(leftovers.processes_with(PROBE, marker)):
                seen.update(listeners(pid))
                try:
                    looked_in.add(os.readlink(f"/proc/{pid}/ns/net"))
                except OSError:  # gone meanwhile
                    pass
            time.sleep(0.05)
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        out, err = run.communicate()
        ended = time.monotonic()
        while (left := [leftovers.describe(pid) for pid in leftovers.processes_with(PROBE, marker)]) and \
                time.monotonic() < ended + 5:
            time.sleep(0.1)
    finally:
        leftovers.kill_all(PROBE, marker)
    return Watched(run.returncode, out, err, seen, looked_in, left)


def _namespace_hosts(cluster) -> dict[str, tuple[str, str]]:
    """{net namespace: (host name, address)} of the test hosts."""
    found = {}
    for k in (1, 2, 3):
        anchor = (cluster.dir / f"h{k}.pid").read_text().strip()
        found[os.readlink(f"/proc/{anchor}/ns/net")] = (f"{cluster.prefix}-h{k}", f"198.18.0.{k}")
    return found


def _ipv4(host: str) -> str:
    """An IPv4 address as an IPv6 socket shows it (::ffff:198.18.0.1, a JVM's, ZeroMQ's) as itself."""
    address = ipaddress.ip_address(host)
    return str(getattr(address, "ipv4_mapped", None) or address)


def check_listening(cluster, system: str, watched: Watched) -> None:
    """Every socket the run listened on is on loopback or its own host's address (or, for the
    engines in WILDCARD_BINDERS, every interface of its host), and the run was seen on every host."""
    assert watched.seen, f"{system} was never seen listening: the test looked at nothing"
    hosts = _namespace_hosts(cluster)
    assert set(hosts) <= watched.looked_in, f"{system}'s processes were not all found: the test looked at fewer hosts"
    # A socket is its binder's: children that inherited it (Hydra's proxies) hold the same one.
    binders = {}
    for s in watched.seen:
        program = os.path.basename(s.command.split()[0]) if s.command else ""
        allowed = program.startswith(WILDCARD_BINDERS.get(system, ())) if program else False
        key = (s.namespace, s.table, s.host, s.port)
        binders[key] = binders.get(key, False) or allowed
    wrong = []
    for s in watched.seen:
        what = f"{s.table} {s.host}:{s.port} pid {s.pid} ({s.command[:80]})"
        if s.namespace not in hosts:
            if not is_loopback(s.host):
                wrong.append(f"{what}, outside the test hosts")
        elif ipaddress.ip_address(s.host).is_unspecified:
            if not binders[(s.namespace, s.table, s.host, s.port)]:
                wrong.append(f"{what}: every interface of {hosts[s.namespace][0]}")
        elif not is_loopback(s.host) and _ipv4(s.host) != hosts[s.namespace][1]:
            wrong.append(f"{what}: not {hosts[s.namespace][0]}'s address {hosts[s.namespace][1]}")
    assert not wrong, f"{system} listens beyond its hosts' addresses:\n" + "\n".join(sorted(wrong))
