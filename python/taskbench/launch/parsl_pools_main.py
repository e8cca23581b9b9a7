"""build/bin/parsl_pools -hosts FILE -workers N -- SYSTEM [FLAGS...]: the harness's `parsl_pools`
launcher across hosts (launch/parsl_pools.py). Starts the parsl system on the description's first
host with its interchange listening on that host's address (-listen ADDRESS:0), then, once the
interchange has picked its port, one Parsl worker pool per host (process_worker_pool, as a user
starts one by hand on each node), through each host's start method, with N workers in all (the
hosts in turn, each up to its cores). Ends with the system's status; a pool that dies during the
run ends it with status 1, naming its host. Pools and system are stopped by pid afterwards."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taskbench.launch import leftovers, tied
from taskbench.launch.attached_run import die_like
from taskbench.launch.hosts import Cluster, Host, read_cluster

START_SECONDS = 120.0  # the driver imports Parsl and starts its interchange on a loaded machine
SETTLE_SECONDS = 2.0  # a pool's death makes the system fail a moment later: its reason is the pool's
POLL_SECONDS = 0.02
# On the command line, as ssh drops the environment: the package and _core for the pools' tasks,
# the run's marker and fault switch.
CARRIED = ("PYTHONPATH", "TASKBENCH_CORE_DIR", "TASKBENCH_FAULT", leftovers.MARKER_VARIABLE,
           *leftovers.KEEP_ENVIRON)


def on(host: Host, argv: list[str]) -> list[str]:
    carried = [f"{k}={os.environ[k]}" for k in CARRIED if k in os.environ]
    return host.command(["env", *carried, *argv])


def workers_per_host(cluster: Cluster, workers: int) -> list[tuple[Host, int]]:
    """The hosts in turn, each up to its cores, then round again; hosts left with none dropped."""
    slots = cluster.slots()
    counts = {h.name: 0 for h in cluster.hosts}
    for k in range(workers):
        counts[slots[k % len(slots)].name] += 1
    return [(h, counts[h.name]) for h in cluster.hosts if counts[h.name]]


def pool_command(address: str, port: int, folder: Path, block: int, workers: int) -> list[str]:
    # The heartbeats of the system's executor: a pool whose interchange went ends within 10 s.
    return [sys.executable, "-m", "parsl.executors.high_throughput.process_worker_pool", "-a", address,
            "--port", str(port), "--cert_dir", str(folder / "certificates"), "--max_workers_per_node",
            str(workers), "-c", "1", "-m", "None", "-p", "0", "--poll", "10", "--hb_period", "1",
            "--hb_threshold", "10", "--drain_period", "None", "--block_id", str(block),
            "--logdir", str(folder / f"pool-{block}"), "--cpu-affinity", "none", "--mpi-launcher", "mpiexec"]


def wait_for_port(folder: Path, driver: subprocess.Popen) -> int | None:
    """The interchange's port once the system wrote it; None if the system ended first."""
    deadline = time.monotonic() + START_SECONDS
    while driver.poll() is None and time.monotonic() < deadline:
        try:
            return int((folder / "worker_port").read_text())
        except (OSError, ValueError):
            time.sleep(POLL_SECONDS)
    if driver.poll() is None:
        sys.stderr.write(f"taskbench: the Parsl interchange did not start within {START_SECONDS:g} s\n")
    return None


def supervise(driver: subprocess.Popen, pools: dict[str, subprocess.Popen]) -> int:
    """The system's status; status 1 naming the pool when one died and the system did not end
    on its own soon after (Parsl notices a lost pool only after its heartbeat threshold)."""
    def dead():
        return next(((name, p) for name, p in pools.items() if p.poll() is not None), None)
    while driver.poll() is None and not dead():
        time.sleep(POLL_SECONDS)
    deadline = time.monotonic() + SETTLE_SECONDS
    while driver.poll() is None and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
    if driver.poll() is not None:
        return driver.returncode
    name, pool = dead()
    how = f"by {signal.Signals(-pool.returncode).name}" if pool.returncode < 0 else f"with status {pool.returncode}"
    sys.stderr.write(f"taskbench: the Parsl worker pool on host {name} (pid {pool.pid}) ended {how} during the run\n")
    return 1


def stop(processes: list[subprocess.Popen]) -> None:
    """SIGKILL by process group: a pool's workers are its children, in its group (an srun that
    started a pool on a Slurm node gets SIGTERM: leftovers.stop_started)."""
    leftovers.stop_started(processes, group=True)


def start_pools(cluster: Cluster, workers: int, port: int, folder: Path,
                started: list[subprocess.Popen]) -> dict[str, subprocess.Popen]:
    pools = {}
    first = cluster.hosts[0]
    for block, (host, count) in enumerate(workers_per_host(cluster, workers)):
        # Each in a session of its own, with its workers: one killpg ends them all.
        pools[host.name] = tied.popen(on(host, pool_command(first.address, port, folder, block, count)),
                                      signal.SIGKILL, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(),
                                      start_new_session=True)
        started.append(pools[host.name])
    return pools


def scratch_folder(beside: Path) -> tempfile.TemporaryDirectory:
    """A new folder beside the description, named for this host and process. Those of earlier
    runs on this host whose process is gone (a timeout's SIGKILL leaves its folder) go first;
    other hosts' are theirs to remove."""
    prefix = f".taskbench-parsl-{socket.gethostname()}-"
    for path in beside.glob(prefix + "*"):
        pid = path.name[len(prefix):].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=beside)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="parsl_pools", description=__doc__.splitlines()[0])
    parser.add_argument("-hosts", required=True, help="the cluster description (docs/clusters.md)")
    parser.add_argument("-workers", type=int, required=True, help="worker processes in all")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- SYSTEM [FLAGS...]")
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program or args.workers < 1:
        parser.error("needs -hosts FILE, -workers N >= 1 and -- SYSTEM [FLAGS...]")
    cluster = read_cluster(Path(args.hosts))
    first = cluster.hosts[0]
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, _: sys.exit(128 + number))
    started: list[subprocess.Popen] = []
    # The interchange's keys and port, and the pools' logs: beside the description, on the file
    # system the hosts share.
    with scratch_folder(cluster.path.parent) as name:
        folder = Path(name)
        try:
            driver = tied.popen(on(first, [*program, "-listen", f"{first.address}:0", "-keys", name,
                                           "-worker", str(args.workers)]), signal.SIGKILL, start_new_session=True)
            started.append(driver)
            port = wait_for_port(folder, driver)
            status = (driver.returncode or 1) if port is None else supervise(driver, start_pools(
                cluster, args.workers, port, folder, started))
        finally:
            stop(started)
    die_like(status)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
