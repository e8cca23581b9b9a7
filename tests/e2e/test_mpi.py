"""End-to-end tests of the MPI systems: mpi_p2p, mpi_bulk, mpi_openmp, each built for Open MPI
(plain names) and MPICH (_mpich suffix), and mpi_openmp_llvm (mpi_openmp's source on LLVM's
libomp, Open MPI only).

Every run must print the same "Total Tasks/Dependencies/FLOPs/Bytes" lines as build/bin/serial
with the same flags (the core also checks that every task ran exactly once and validated every
input, so agreement means the messages carried the right bytes). The default matrix is sized for
about two minutes on two cores; TASKBENCH_MPI_FULL=1 runs every pattern at every rank count.
TASKBENCH_BUILD_DIR picks another build folder (default: build/).
"""

import functools
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("TASKBENCH_BUILD_DIR", ROOT / "build")) / "bin"
FULL = os.environ.get("TASKBENCH_MPI_FULL") == "1"
TIMEOUT = 120  # seconds per launch: a lost message shows up as a hang, not as a wrong answer

# Open MPI refuses to run as root without these; harmless otherwise.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("TASKBENCH_FAULT", None)

SYSTEMS = ["mpi_p2p", "mpi_bulk", "mpi_openmp"]
FLAVORS = ["openmpi", "mpich"]
SUFFIX = {"openmpi": "", "mpich": "_mpich"}
# Every (system, flavor) built: the three for both implementations, and mpi_openmp_llvm.
SYSTEM_FLAVORS = [(s, f) for s in SYSTEMS for f in FLAVORS] + [("mpi_openmp_llvm", "openmpi")]
OPENMP_SYSTEMS = ("mpi_openmp", "mpi_openmp_llvm")  # ranks x threads

# Each pattern with flags that exercise it (periods > 1, radix > 3, partial connectivity).
PATTERNS = {
    "trivial": [],
    "no_comm": [],
    "stencil_1d": [],
    "stencil_1d_periodic": [],
    "dom": [],
    "tree": [],
    "fft": [],
    "all_to_all": [],
    "nearest": ["-radix", "5"],
    "spread": ["-radix", "3", "-period", "2"],
    "random_nearest": ["-radix", "5", "-period", "3", "-fraction", "0.5"],
    "random_spread": ["-radix", "3", "-period", "3", "-fraction", "0.5"],
}
# The patterns whose communication is most irregular, for the other rank counts.
SUBSET = ["stencil_1d_periodic", "dom", "tree", "fft", "all_to_all", "spread", "random_spread"]


def launcher(flavor):
    """The mpirun of one implementation, or None."""
    if flavor == "openmpi":
        return shutil.which("mpirun.openmpi") or shutil.which("mpirun", path="/usr/lib64/openmpi/bin")
    return shutil.which("mpirun.mpich") or shutil.which("mpiexec.hydra") or shutil.which(
        "mpirun", path="/usr/lib64/mpich/bin")


def binary(system, flavor):
    """The system's executable, or skip the test saying why."""
    path = BIN / (system + SUFFIX[flavor])
    if not path.exists():
        pytest.skip(f"{path.name} is not built (see the configure summary: OPENMPI/MPICH/MPI_OPENMP)")
    if launcher(flavor) is None:
        pytest.skip(f"no mpirun for {flavor} found")
    return path


def mpi_command(flavor, ranks, exe, args):
    if flavor == "openmpi":
        # --oversubscribe: up to 4 ranks on 2 cores (Open MPI then also yields when idle).
        return [launcher(flavor), "--oversubscribe", "-np", str(ranks), str(exe), *args]
    return [launcher(flavor), "-np", str(ranks), str(exe), *args]


def run(cmd, env=ENV):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def summary(stdout):
    keys = ("Total Tasks", "Total Dependencies", "Total FLOPs", "Total Bytes")
    return [line for line in stdout.splitlines() if line.startswith(keys)]


@functools.lru_cache(maxsize=None)
def serial_summary(args):
    exe = BIN / "serial"
    if not exe.exists():
        pytest.skip("build/bin/serial is not built")
    out = run([str(exe), *args])
    assert out.returncode == 0, out.stderr
    return summary(out.stdout)


def check_against_serial(system, flavor, ranks, args):
    exe = binary(system, flavor)
    system_args = ["-expect-ranks", str(ranks)]
    if system in OPENMP_SYSTEMS:
        system_args += ["-worker", "2"]  # two threads per rank share out each step's tasks
    out = run(mpi_command(flavor, ranks, exe, [*args, *system_args]))
    what = f"{exe.name} x{ranks} {' '.join(args)}"
    assert out.returncode == 0, f"{what}:\n{out.stdout}\n{out.stderr}"
    got = summary(out.stdout)
    assert len(got) == 4, f"{what}:\n{out.stdout}"
    assert got == serial_summary(tuple(args)), what


def two_graphs(pattern):
    """Two graphs of one pattern with different shapes and outputs (-and interleaves them)."""
    extra = PATTERNS[pattern]
    return ["-type", pattern, "-width", "7", "-steps", "9", *extra,
            "-and", "-type", pattern, "-width", "5", "-steps", "6", "-output", "100", *extra]


def matrix():
    """(system, flavor, ranks, pattern): every pattern at 2 ranks, a subset at 1, 3 and 4."""
    cases = []
    for system, flavor in SYSTEM_FLAVORS:
        for ranks in (1, 2, 3, 4):
            if FULL or ranks == 2:
                patterns = list(PATTERNS)
            elif system == "mpi_p2p" or ranks == 3:
                patterns = SUBSET
            else:
                patterns = SUBSET[:3]
            cases += [(system, flavor, ranks, p) for p in patterns]
    return cases


@pytest.mark.parametrize("system,flavor,ranks,pattern", matrix())
def test_pattern_matches_serial(system, flavor, ranks, pattern):
    check_against_serial(system, flavor, ranks, two_graphs(pattern))


@pytest.mark.parametrize("system,flavor", SYSTEM_FLAVORS)
@pytest.mark.parametrize("ranks,output", [(2, 1000), (3, 1 << 20)])
def test_output_sizes(system, flavor, ranks, output):
    """Odd sizes and 1 MiB outputs (large enough for the rendezvous protocols)."""
    args = ["-type", "all_to_all", "-width", "5", "-steps", "4", "-output", str(output),
            "-and", "-type", "nearest", "-radix", "5", "-width", "6", "-steps", "5", "-output",
            str(output)]
    check_against_serial(system, flavor, ranks, args)


KERNELS = {
    "busy_wait": ["-iter", "100"],
    "compute_bound": ["-iter", "50"],
    "compute_bound2": ["-iter", "50"],
    "memory_bound": ["-iter", "4", "-scratch", "8192"],
    "memory_daxpy": ["-iter", "4", "-scratch", "8192"],
    "compute_dgemm": ["-iter", "1", "-scratch", "6144"],
    "io_bound": ["-iter", "2"],
    "load_imbalance": ["-iter", "100", "-imbalance", "1.0"],
}


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_kernels(kernel, flavor):
    args = ["-type", "stencil_1d", "-width", "4", "-steps", "5", "-kernel", kernel, *KERNELS[kernel]]
    if kernel == "compute_dgemm" and run([str(BIN / "serial"), *args]).returncode != 0:
        pytest.skip("this build has no BLAS (compute_dgemm unavailable)")
    check_against_serial("mpi_p2p", flavor, 2, args)


def test_more_ranks_than_columns():
    """Ranks 2 and 3 own nothing; dom and tree rows narrower than the rank count."""
    for flavor in FLAVORS:
        for pattern in ("stencil_1d", "dom", "tree"):
            check_against_serial("mpi_p2p", flavor, 4, ["-type", pattern, "-width", "2", "-steps", "5"])


@pytest.mark.parametrize("system,flavor", SYSTEM_FLAVORS)
def test_fault_fails_through_messages(system, flavor):
    """Corrupt (t=1, i=1) of a 4-wide tree on 2 ranks: its only consumers, (2, 2) and (2, 3),
    live on rank 1, so the corruption can only be seen after it crossed the wire."""
    exe = binary(system, flavor)
    env = dict(ENV, TASKBENCH_FAULT="corrupt:0,1,1")
    out = run(mpi_command(flavor, 2, exe, ["-type", "tree", "-width", "4", "-steps", "3"]), env=env)
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "validation failed" in text, text
    assert "task (t=2, i=2)" in text or "task (t=2, i=3)" in text, text


@pytest.mark.parametrize("system,flavor", SYSTEM_FLAVORS)
def test_rank_count_mismatch(system, flavor):
    exe = binary(system, flavor)
    out = run(mpi_command(flavor, 2, exe, ["-expect-ranks", "3"]))
    assert out.returncode != 0
    assert "-expect-ranks 3, but this process is rank" in out.stderr, out.stderr
    assert "Total Tasks" not in out.stdout


@pytest.mark.parametrize("flavor", FLAVORS)
def test_broken_launch_is_caught(flavor):
    """The original's failure mode: processes that do not form one job (no mpirun, or the
    other implementation's mpirun) each run the whole graph alone. -expect-ranks stops each."""
    exe = binary("mpi_p2p", flavor)
    alone = run([str(exe), "-expect-ranks", "2"])
    assert alone.returncode == 2
    assert alone.stderr.strip().endswith("(the MPI it was built with)"), alone.stderr
    assert "job of 1 rank(s)" in alone.stderr
    other = "mpich" if flavor == "openmpi" else "openmpi"
    if launcher(other) is None:
        return
    mixed = run(mpi_command(other, 2, exe, ["-expect-ranks", "2"]))
    assert mixed.returncode != 0
    assert "Total Tasks" not in mixed.stdout
    assert mixed.stderr.count("job of 1 rank(s)") == 2, mixed.stderr


# ---- Two hosts: two network namespaces joined by a veth pair, Open MPI over TCP ----

# Test hosts take addresses from 198.18.0.0/15 only (benchmarking, never routed).
HOSTS = {"198.18.0.1": "a", "198.18.0.2": "b"}
VETH = "tbveth0"  # the same name in both namespaces, so one btl_tcp_if_include fits both


def ip(*args, check=True):
    out = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and out.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {out.stderr.strip()}")
    return out


@pytest.fixture
def two_hosts():
    """Namespaces {prefix}a (198.18.0.1) and {prefix}b (198.18.0.2); removed afterwards."""
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2)")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root")
    prefix = f"tbmpi{os.getpid()}"
    names = {host: prefix + tag for host, tag in HOSTS.items()}
    created = []
    try:
        for ns in names.values():
            ip("netns", "add", ns)
            created.append(ns)
        a, b = names.values()
        ip("link", "add", VETH, "netns", a, "type", "veth", "peer", "name", VETH, "netns", b)
        for host, ns in names.items():
            ip("-n", ns, "addr", "add", host + "/24", "dev", VETH)
            ip("-n", ns, "link", "set", VETH, "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except RuntimeError as e:
        for ns in created:
            ip("netns", "del", ns, check=False)
        pytest.skip(f"cannot create network namespaces here: {e}")
    try:
        yield names
    finally:
        for ns in created:
            ip("netns", "del", ns, check=False)


def veth_tx_bytes(ns):
    stats = json.loads(ip("-n", ns, "-s", "-j", "link", "show", VETH).stdout)
    return stats[0]["stats64"]["tx"]["bytes"]


def test_two_hosts_over_tcp(two_hosts, tmp_path):
    exe = binary("mpi_p2p", "openmpi")
    hostfile = tmp_path / "hosts"
    hostfile.write_text("".join(f"{host} slots=1\n" for host in HOSTS))
    first_ns, second_ns = two_hosts.values()
    env = dict(ENV, TASKBENCH_NETNS_HOSTS=" ".join(f"{h}={ns}" for h, ns in two_hosts.items()))
    args = ["-type", "stencil_1d", "-width", "4", "-steps", "20", "-output", "65536",
            "-nodes", "2", "-expect-ranks", "2"]
    cmd = ["ip", "netns", "exec", first_ns, launcher("openmpi"), "-np", "2",
           "--hostfile", str(hostfile), "--map-by", "node",
           "--mca", "plm_rsh_agent", str(ROOT / "tests/mpi/netns_agent.sh"),
           "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", VETH,
           "--mca", "oob_tcp_if_include", VETH, str(exe), *args]
    before = veth_tx_bytes(second_ns)
    out = run(cmd, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert summary(out.stdout) == serial_summary(tuple(args[:-2]))
    # Rank 1 sent 19 outputs of 64 KiB to rank 0 through the veth pair.
    assert veth_tx_bytes(second_ns) - before > 19 * 65536
