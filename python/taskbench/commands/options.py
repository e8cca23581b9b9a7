"""What several commands' options share: the kinds of number they take, as argparse types (a
count or a time of zero or less, `--timeout -1`, is refused while parsing, in the command's one
usage line, before anything is opened or run), and the options that say how a run is launched
and where it goes."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError, did_you_mean
from taskbench.hosts import slurm
from taskbench.hosts.description import HOSTS_VARIABLE, Cluster, read_cluster
from taskbench.measure.kernels import KERNELS, UNCOUNTED

# The core's dependence patterns (docs/spec.md §1), for the options' help; the
# core itself checks a --pattern (its one line has the closest name).
PATTERNS = ("trivial", "no_comm", "stencil_1d", "stencil_1d_periodic", "dom", "tree", "fft", "all_to_all",
            "nearest", "spread", "random_nearest", "random_spread")


def _number(kind, least: float, strict: bool, says: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text}: not {'a whole number' if kind is int else 'a number'}")
        if value < least or (strict and value == least):
            raise argparse.ArgumentTypeError(f"{text}: must be {says}")
        return value

    parse.__name__ = says  # argparse names the type in some of its messages
    return parse


positive_int = _number(int, 0, True, "positive")
positive_float = _number(float, 0.0, True, "positive")
count = _number(int, 0, False, "0 or more")
non_negative = _number(float, 0.0, False, "0 or more")


def _percentage(zero_allowed: bool):
    least = non_negative if zero_allowed else positive_float

    def parse(text: str) -> float:
        value = least(text)
        if value >= 100:
            raise argparse.ArgumentTypeError(f"{text}: must be a percentage below 100")
        return value

    return parse


def counted_kernel(text: str) -> str:
    """A kernel whose work is counted (FLOPs or bytes): the only ones with an efficiency, so the
    only ones `metg` and `peak` take. Refused while parsing, with the closest such name."""
    if text in KERNELS:
        return text
    if text in UNCOUNTED:
        raise argparse.ArgumentTypeError(f"kernel '{text}' does no counted work, so it has no efficiency (and no "
                                         f"METG): one of {', '.join(KERNELS)}")
    raise argparse.ArgumentTypeError(f"unknown kernel '{text}'{did_you_mean(text, KERNELS)} (one of "
                                     f"{', '.join(KERNELS)})")


def pattern_help(default: str) -> str:
    return f"dependence pattern: {', '.join(PATTERNS)} ({default})"


def kernel_help(default: str) -> str:
    return f"task kernel, one whose work is counted: {', '.join(KERNELS)} ({default})"


percentage = _percentage(zero_allowed=False)  # a threshold, an interval's half-width
percentage_or_zero = _percentage(zero_allowed=True)  # 0 turns the feature off


def add_launch_options(p, timeout: float, hosts_default: str = "") -> None:
    """--timeout, --ranks, --threads-per-rank, --launcher and --hosts of `run` and `metg`."""
    p.add_argument("--timeout", type=positive_float, default=timeout,
                   help=f"seconds before a run is killed ({timeout:g})")
    p.add_argument("--ranks", "--workers", dest="ranks", type=positive_int,
                   help="MPI ranks (MPI systems), or the workers of the Dask or Spark cluster the harness "
                        "starts for the run (default: the cores)")
    p.add_argument("--threads-per-rank", type=positive_int, help="threads per process/rank")
    p.add_argument("--launcher", choices=["mpirun", "srun"],
                   help="start an MPI system's ranks with this (default: its registry entry's); srun inside "
                        "a Slurm allocation also runs every other system across its nodes (docs/slurm.md)")
    p.add_argument("--hosts", metavar="FILE",
                   help="run across the hosts of this cluster description, or `slurm`: the allocation's nodes "
                        f"(docs/clusters.md; default: $TASKBENCH_HOSTS, else this machine alone){hosts_default}")


def cluster_from(option: str | None, allocation_by_default: bool = False) -> Cluster | None:
    """--hosts FILE, else TASKBENCH_HOSTS, else None: this machine alone. `--hosts slurm`: the
    Slurm allocation the harness runs in, also the default where `allocation_by_default`
    (taskbench hosts, --launcher srun) and the harness runs in one. The choice is the option's:
    the description knows nothing of Slurm, and Slurm's module only writes a description."""
    if not option and allocation_by_default and slurm.in_allocation():
        option = slurm.KEYWORD  # the allocation, over a login node's TASKBENCH_HOSTS
    value = option or os.environ.get(HOSTS_VARIABLE)
    if value == slurm.KEYWORD:
        return slurm.allocation_cluster()
    return read_cluster(Path(value)) if value else None


def add_simulate_options(p, node_counts: str | None = None) -> None:
    """--simulate and --nodes: one node count (`run`), or a list whose use `node_counts` says."""
    p.add_argument("--simulate", metavar="PLATFORM",
                   help="run an MPI system's SimGrid build on this simulated platform: a shipped one (cori, small) "
                        "or a SimGrid platform file (docs/simulation.md)")
    if node_counts:
        p.add_argument("--nodes", type=node_list, metavar="N,N,...",
                       help=f"with --simulate: the node counts (1), {node_counts}")
    else:
        p.add_argument("--nodes", type=positive_int, help="with --simulate: the nodes the run spans (1)")


def simulated_nodes(args, default):
    """--nodes, which only a simulated platform has (real hosts: --hosts), else `default`."""
    if args.nodes is not None and not args.simulate:
        raise UserError("--nodes goes with --simulate PLATFORM (real hosts: --hosts FILE)", EXIT_USAGE)
    return default if args.nodes is None else args.nodes


def node_list(text: str) -> list[int]:
    """"1,2,4": positive whole numbers, each once, in the order given."""
    counts = [positive_int(part) for part in text.split(",")]
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"{text}: a node count given twice")
    return counts
