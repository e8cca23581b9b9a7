"""A cluster description made from the Slurm allocation the harness runs in (`--hosts slurm`,
and `taskbench hosts` inside an allocation): the allocation's nodes (`scontrol show hostnames
$SLURM_JOB_NODELIST`), each node's address as Slurm reaches it (its NodeAddr, from `scontrol
show node`), the CPUs the allocation has there ($SLURM_JOB_CPUS_PER_NODE), and `srun` as the
start method. It is written to a file in the job's submit folder ($SLURM_SUBMIT_DIR, on the
file system the nodes share), because the launchers' agents read the description again there."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError
from taskbench.launch.hosts import Cluster, description_text, write_description

KEYWORD = "slurm"  # --hosts slurm
TIMEOUT = 30.0


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
    folder = Path(os.environ.get("SLURM_SUBMIT_DIR") or Path.cwd())
    return write_description(folder / f".taskbench-hosts-{os.environ['SLURM_JOB_ID']}.toml",
                             description_text([(n, addresses.get(n, n), c, "srun") for n, c in zip(names, cpus)]))
