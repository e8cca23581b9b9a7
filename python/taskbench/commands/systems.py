"""`taskbench systems`: every registry entry, available or not, and why not."""

from __future__ import annotations

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK


def add_parser(subparsers, common):
    p = subparsers.add_parser("systems", parents=[common], help="list the systems and whether they can run here")
    p.add_argument("--available", action="store_true", help="only the systems that can run here")
    return p


def main(args, ctx) -> int:
    registry = ctx.registry
    rows = []
    for s in registry:
        if args.available and not s.available:
            continue
        launch = s.launcher + (f" ({s.mpi or 'openmpi'}, {s.ranks or 1} ranks)" if s.launcher == "mpirun" else "")
        rows.append([s.name, "yes" if s.available else "no", "yes" if s.default else "",
                     launch, s.cores, s.paper_row, s.reason or s.description])
    ctx.console.table(f"systems ({ctx.layout.describe()})",
                      ["system", "available", "default", "launcher", "cores", "paper row",
                       "description / why not available"], rows)
    if not registry.systems:
        ctx.console.warn(f"no registry entries found (looked in {ctx.layout.systems_dir})")
        return EXIT_ENVIRONMENT
    return EXIT_OK
