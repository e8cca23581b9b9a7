"""`taskbench reference`: the SC20 paper's published METG(50%), per system and node count, from
the data sets the project derives from the paper's raw logs (docs/reference.md), with the
paper's definition of METG. Labelled as published, never as a measurement of this machine."""

from __future__ import annotations

from taskbench import units
from taskbench.commands.options import positive_int
from taskbench.errors import EXIT_OK, EXIT_USAGE, UserError
from taskbench.reference import published, sc20


def add_parser(subparsers, common):
    p = subparsers.add_parser("reference", parents=[common],
                              help="the SC20 paper's published METG(50%%) per system and node count")
    p.add_argument("--pattern", help="dependence pattern (default: the data set's figure's; stencil_1d for compute)")
    p.add_argument("--graphs", type=positive_int,
                   help="task graphs run at once (default: the data set's figure's; 1 for compute)")
    p.add_argument("--data", choices=list(sc20.DATA_SETS), default="compute",
                   help="the paper's data set: " + "; ".join(f"{name}: {d.what}" for name, d in sc20.DATA_SETS.items())
                   + " (default compute)")
    p.add_argument("--all", action="store_true", help="also the variants the paper's figures leave out")
    return p


def main(args, ctx) -> int:
    rows = [r for r in sc20.shipped(args.data) if args.all or r["visible"] == "True"]
    patterns = sorted({r["pattern"] for r in rows})
    data_set = sc20.DATA_SETS[args.data]  # the defaults follow it: its figure's graph
    args.pattern = args.pattern or data_set.pattern
    if args.pattern not in patterns:
        raise UserError(f"--pattern {args.pattern}: the {args.data} data set has {', '.join(patterns)}", EXIT_USAGE)
    graphs = sorted({r["ngraphs"] for r in rows if r["pattern"] == args.pattern})
    args.graphs = args.graphs or data_set.graphs
    rows = [r for r in rows if r["pattern"] == args.pattern and r["ngraphs"] == args.graphs]
    if not rows:
        raise UserError(f"--graphs {args.graphs}: {args.pattern} was published with {', '.join(map(str, graphs))} "
                        "graph(s)", EXIT_USAGE)
    swept = data_set.param  # radix: one column per radix at its node count
    column_of = (lambda r: f"{swept} {r[swept]}") if swept else (lambda r: units.count(r["nodes"], "node"))
    order = sorted({(float(r[swept]) if swept else r["nodes"], column_of(r)) for r in rows})
    columns = [c for _, c in order]
    figures = units.Figures(ctx.console.quiet)
    table: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        label = r["label"] + ("" if swept is None else f" ({units.count(r['nodes'], 'node')})")
        table.setdefault((label, r["system"]), {})[column_of(r)] = figures.seconds(r["metg_seconds"])
    # The registry entries that run each published system's algorithm (`paper_system`).
    ports = published.ports((s.name, s.paper_system) for s in ctx.registry)
    ctx.console.table(f"{published.label(args.data)}: METG(50%), {args.pattern}, {units.count(args.graphs, 'graph')}, "
                      f"{args.data} data set, the paper's definition (mean of the repetitions per size)",
                      ["system", "published as", "its port here", *columns],
                      [[label, system, ", ".join(ports.get(system, [])) or "-", *(cells.get(c, "") for c in columns)]
                       for (label, system), cells in sorted(table.items())])
    ctx.console.note(f"from {sc20.SOURCE} at {sc20.COMMIT}, derived by this project's parser "
                     f"(version {sc20.PARSER_VERSION}); {data_set.what}, 2020's software: docs/reference.md")
    return EXIT_OK
