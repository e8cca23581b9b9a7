"""A run across the test hosts listens on loopback or on its hosts' own addresses only: each
multi-host system's processes (found by a marker in their environment, wherever they run) are
polled for listening sockets throughout a `taskbench run --hosts`, and each socket is checked
against the host whose network namespace holds it. A socket bound to every interface of a test
host is reachable at that host's address only (a test host has loopback and one link), so it
passes too, but is listed: the engines that cannot be told one address (Open MPI's out-of-band
channel, Hydra's control port, Charm++'s netlrts layer, Ray) are named here, and any other
engine doing it fails."""
from __future__ import annotations

import ipaddress
import os
import signal
import subprocess
import sys
import time

import pytest

from cluster_helpers import REPO, SCRIPT

sys.path.insert(0, str(REPO / "tests" / "harness"))
from listening_sockets import descendants, is_loopback, listeners  # noqa: E402
from taskbench.launch import leftovers  # noqa: E402
from taskbench.registry import Registry  # noqa: E402
from taskbench.registry.locations import find_layout  # noqa: E402

PROBE = "TASKBENCH_TEST_CLUSTER_LISTENING_PROBE"
SHORT = ["-width", "6", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "20000"]
STEPS = {"spark_standalone": 8}  # a Spark task costs tens of ms; the others' a few hundred µs

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
SYSTEMS = ["mpi_p2p", "mpi_p2p_mpich", "dask_distributed", "parsl", "charm4py", "ray", "spark_standalone"]


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


def _require(system: str) -> None:
    found = Registry(find_layout()).get(system)
    if not found.available:
        # The large-engines stage selects the large ones (Spark), which must be there.
        if os.environ.get("TASKBENCH_REQUIRE_LARGE_ENGINES") == "1":
            pytest.fail(f"{system} is not available: {found.reason}")
        pytest.skip(f"{system} is not available: {found.reason}")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_run_across_hosts_listens_only_on_its_hosts_addresses(cluster, system, tmp_path):
    _require(system)
    marker = leftovers.new_marker()
    argv = [str(SCRIPT), "--dir", str(cluster.dir), "--prefix", cluster.prefix, "run", "taskbench", "-q",
            "--db", str(tmp_path / "runs.db"), "run", "--hosts", str(cluster.hosts_file), "--timeout", "180",
            system, "-steps", str(STEPS.get(system, 400)), *SHORT]
    run = subprocess.Popen(argv, env=dict(os.environ, **{PROBE: marker}), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen, looked_in = set(), set()  # listeners; the network namespaces of the run's processes
    try:
        deadline = time.monotonic() + 240
        while run.poll() is None and time.monotonic() < deadline:
            for pid in descendants(run.pid) | set(leftovers.processes_with(PROBE, marker)):
                seen.update(listeners(pid))
                try:
                    looked_in.add(os.readlink(f"/proc/{pid}/ns/net"))
                except OSError:  # gone meanwhile
                    pass
            time.sleep(0.2)
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        out, err = run.communicate()
    finally:
        leftovers.kill_all(PROBE, marker)
    assert run.returncode == 0, out + err
    assert seen, f"{system} was never seen listening: the test looked at nothing"
    hosts = _namespace_hosts(cluster)
    assert set(hosts) <= looked_in, f"{system}'s processes were not all found: the test looked at fewer hosts"
    # A socket is its binder's: children that inherited it (Hydra's proxies) hold the same one.
    binders = {}
    for s in seen:
        program = os.path.basename(s.command.split()[0]) if s.command else ""
        allowed = program.startswith(WILDCARD_BINDERS.get(system, ())) if program else False
        key = (s.namespace, s.table, s.host, s.port)
        binders[key] = binders.get(key, False) or allowed
    wrong = []
    for s in seen:
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
