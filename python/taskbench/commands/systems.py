"""`taskbench systems`: every registry entry, available or not, and why not.

On a terminal: one line per system (why not available cut to fit), or with --long the full
descriptions and reasons as keyed lines below the table. Off a terminal and under -q, the
tab-separated table is the same whatever --long says: every column, the reason or else the
description in the last.
"""

from __future__ import annotations

from taskbench.console import NOTES, Fit
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK
from taskbench.launch import LaunchOptions
from taskbench.launch.mpi_common import rank_layout
from taskbench.reference import published, sc20

WHY = "description / why not available"  # the TSV column (scripts read it by this name)
# The short view: the one column that may be cut to keep a system on one line.
SHORT_FIT = Fit(cut=("why not available",))
LONG_FIT = Fit(keyed_by="system")


def add_parser(subparsers, common):
    p = subparsers.add_parser("systems", parents=[common], help="list the systems and whether they can run here")
    p.add_argument("--available", action="store_true", help="only the systems that can run here")
    p.add_argument("--long", action="store_true",
                   help="full descriptions and reasons (default on a terminal: one line per system)")
    return p


def _launcher(s) -> str:
    if s.launcher != "mpirun":
        return s.launcher
    layout = rank_layout(s, LaunchOptions())  # this machine's default, --ranks aside
    return f"{s.launcher} ({s.mpi or 'openmpi'}, {layout.ranks} ranks x {layout.threads_per_rank or 1})"


def _cores(s):
    """The cores a run takes by default: an MPI system's ranks x threads here (as `run` counts
    them), else the entry's count ("all": every available core)."""
    if s.launcher != "mpirun":
        return s.cores
    layout = rank_layout(s, LaunchOptions())
    return layout.ranks * (layout.threads_per_rank or 1)


def _paper(s) -> str:
    """The paper's row whose algorithm the entry runs: its label, and its name in the published data."""
    return f"{published.label_of(s.paper_system)} ({s.paper_system})" if s.paper_system else ""


def _described(s) -> str:
    """The description, and the build's note on the system's component (which driver it loads)."""
    return s.description + (f" ({s.note})" if s.note else "")


def main(args, ctx) -> int:
    registry = ctx.registry
    systems = [s for s in registry if s.available or not args.available]
    title = f"systems ({ctx.layout.describe()})"
    first = [[s.name, "yes" if s.available else "no", "yes" if s.default else ""] for s in systems]
    if ctx.console.tabular:
        rows = [[*row, _launcher(s), _cores(s), _paper(s), s.reason or _described(s)]
                for row, s in zip(first, systems)]
        columns = ["system", "available", "default", "launcher", "cores", "paper row", WHY]
        ctx.console.table(title, columns, rows)
    elif args.long:
        rows = [[*row, _launcher(s), _cores(s), _paper(s),
                 _described(s) + (f" Not available: {s.reason}" if s.reason else "")]
                for row, s in zip(first, systems)]
        columns = ["system", "available", "default", "launcher", "cores", "paper row", NOTES]
        ctx.console.table(title, columns, rows, LONG_FIT)
    else:
        rows = [[*row, s.launcher, _cores(s), s.reason] for row, s in zip(first, systems)]
        columns = ["system", "available", "default", "launcher", "cores", "why not available"]
        ctx.console.table(title, columns, rows, SHORT_FIT)
        if any(s.reason for s in systems):
            ctx.console.note("each reason in full: taskbench systems --long")
    alone = list(sc20.PUBLISHED_ONLY)
    ctx.console.note(f"the SC20 paper's systems that no package registry has: {', '.join(alone)}; their "
                     "published figures: taskbench reference")
    if not registry.systems:
        ctx.console.warn(f"no registry entries found (looked in {ctx.layout.systems_dir})")
        return EXIT_ENVIRONMENT
    return EXIT_OK
