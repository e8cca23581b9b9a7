"""A cluster description made from the Slurm allocation the harness runs in (`--hosts slurm`,
and `taskbench hosts` inside an allocation): the allocation's nodes (`scontrol show hostnames
$SLURM_JOB_NODELIST`), each node's address as Slurm reaches it (its NodeAddr, from `scontrol
show node`), the CPUs the allocation has there ($SLURM_JOB_CPUS_PER_NODE), and `srun` as the
start method. It is written to a file in the job's submit folder ($SLURM_SUBMIT_DIR, on the
file system the nodes share; .taskbench-slurm/job-ID.toml), because the launchers' agents read the
description again there.

While a run spans an allocation, its nodes are watched (NodeWatch: a node that dies fails the
run in seconds, naming it), and its time limit bounds the run's timeout (seconds_left): a run
that would outlast the job is stored as a timeout rather than lost to Slurm's SIGTERM."""

from __future__ import annotations

import functools
import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError
from taskbench.hosts.description import Cluster, description_text, write_description

KEYWORD = "slurm"  # --hosts slurm
FOLDER = ".taskbench-slurm"  # in the submit folder: a description per job (and its first-N hosts')
TIMEOUT = 30.0
DEFAULT_SLURMD_PORT = 6818
PROBE_SECONDS = 1.0
REASK_SECONDS = 60.0
_ends_at: tuple[float | None, float] | None = None  # (monotonic end or None, when asked)


def in_allocation() -> bool:
    return bool(os.environ.get("SLURM_JOB_NODELIST") and os.environ.get("SLURM_JOB_ID"))


def cpus_per_node(text: str, nodes: int) -> list[int]:
    """SLURM_JOB_CPUS_PER_NODE ("2(x3),4": two CPUs on each of three nodes, then four) as one
    count per node."""
    counts = []
    for part in text.split(","):
        found = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if not found:
            raise UserError(f"SLURM_JOB_CPUS_PER_NODE={text}: not Slurm's form (e.g. 2(x3),4)", EXIT_ENVIRONMENT)
        counts += [int(found[1])] * int(found[2] or 1)
    if len(counts) != nodes:
        raise UserError(f"SLURM_JOB_CPUS_PER_NODE={text} names {len(counts)} nodes, the allocation has {nodes}",
                        EXIT_ENVIRONMENT)
    return counts


def _scontrol(*argv: str) -> str:
    try:
        done = subprocess.run(["scontrol", *argv], capture_output=True, text=True, timeout=TIMEOUT)
    except FileNotFoundError:
        raise UserError("--hosts slurm: scontrol not found on PATH (run it inside a Slurm allocation)",
                        EXIT_ENVIRONMENT) from None
    except subprocess.TimeoutExpired:
        raise UserError(f"--hosts slurm: `scontrol {' '.join(argv)}` gave no answer within {TIMEOUT:g} s",
                        EXIT_ENVIRONMENT) from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["nothing"])[-1]
        raise UserError(f"--hosts slurm: `scontrol {' '.join(argv)}` failed: {said}", EXIT_ENVIRONMENT)
    return done.stdout


def node_addresses(names: list[str]) -> dict[str, str]:
    """Each node's NodeAddr (what Slurm itself connects to; its name where none was set)."""
    addresses = {}
    for line in _scontrol("show", "node", "--oneliner", ",".join(names)).splitlines():
        fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
        if "NodeName" in fields:
            addresses[fields["NodeName"]] = fields.get("NodeAddr") or fields["NodeName"]
    return addresses


def allocation_cluster() -> Cluster:
    """The allocation's hosts, their description written to $SLURM_SUBMIT_DIR (or here)."""
    if not in_allocation():
        raise UserError("--hosts slurm: not inside a Slurm allocation (no SLURM_JOB_NODELIST): run it under "
                        "salloc or sbatch, or give --hosts FILE", EXIT_USAGE)
    names = _scontrol("show", "hostnames", os.environ["SLURM_JOB_NODELIST"]).split()
    cpus = cpus_per_node(os.environ.get("SLURM_JOB_CPUS_PER_NODE", ""), len(names))
    addresses = node_addresses(names)
    folder = Path(os.environ.get("SLURM_SUBMIT_DIR") or Path.cwd()) / FOLDER
    folder.mkdir(exist_ok=True)
    return write_description(folder / f"job-{os.environ['SLURM_JOB_ID']}.toml",
                             description_text([(n, addresses.get(n, n), c, "srun") for n, c in zip(names, cpus)]))


def is_allocation(cluster: Cluster | None) -> bool:
    """Whether the cluster's hosts are started with srun: an allocation's nodes."""
    return cluster is not None and all(h.start[0] == "srun" for h in cluster.hosts)


@functools.cache
def slurmd_port() -> int:
    found = re.search(r"^SlurmdPort\s*=\s*(\d+)", _scontrol("show", "config"), re.M)
    return int(found[1]) if found else DEFAULT_SLURMD_PORT


class NodeWatch:
    """A run's watch over its allocation's nodes: while it is in flight, each node's slurmd is
    asked for a connection every PROBE_SECONDS; a node whose slurmd refuses or does not answer
    twice in a row is lost, and `lost()` says so in one line naming it. Slurm itself takes
    SlurmdTimeout (300 s by default) to mark such a node down, and an MPI job across it may wait
    that long; its ranks on the other nodes only see their messages stop."""

    def __init__(self, cluster: Cluster):
        self.cluster, self.port = cluster, slurmd_port()
        self._lost: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)

    def __enter__(self) -> "NodeWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def lost(self) -> str | None:
        return self._lost

    def _answers(self, host) -> bool:
        try:
            with socket.create_connection((host.address, self.port), timeout=PROBE_SECONDS):
                return True
        except OSError:
            return False

    def _probe(self) -> None:
        misses = {h.name: 0 for h in self.cluster.hosts}
        while not self._stop.wait(PROBE_SECONDS):
            for host in self.cluster.hosts:
                misses[host.name] = 0 if self._answers(host) else misses[host.name] + 1
                if misses[host.name] >= 2:
                    self._lost = (f"host {host.name} ({host.address}) stopped answering: its slurmd does not "
                                  f"accept connections on port {self.port} (the node died, or its slurmd)")
                    return


def seconds_left() -> float | None:
    """Seconds until the Slurm job the harness runs in reaches its time limit, or None (not in a
    job, or no limit). Asked again after REASK_SECONDS: an administrator may change it."""
    global _ends_at
    if not in_allocation():
        return None
    now = time.monotonic()
    if _ends_at is None or now - _ends_at[1] > REASK_SECONDS:
        left = _squeue_time_left(os.environ["SLURM_JOB_ID"])
        _ends_at = (None if left is None else now + left, now)
    return None if _ends_at[0] is None else _ends_at[0] - now


def _squeue_time_left(job: str) -> float | None:
    try:
        done = subprocess.run(["squeue", "-h", "-j", job, "-o", "%L"], capture_output=True, text=True,
                              timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)", done.stdout.strip())
    if done.returncode != 0 or not found:  # UNLIMITED, NOT_SET, or the job is gone
        return None
    days, hours, minutes, seconds = (int(g or 0) for g in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds
