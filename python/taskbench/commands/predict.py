"""`taskbench predict`: the strong-scaling limit of an application from a system's METG
(the paper §V-I; the method in docs/predict.md, the math in taskbench.measure.predict, a stored or
published METG from taskbench.measure.predict_metg)."""

from __future__ import annotations

from taskbench import provenance, units
from taskbench.console import Fit
from taskbench.commands.options import positive_float, positive_int
from taskbench.errors import EXIT_OK, EXIT_USAGE, UserError
from taskbench.measure.predict import Application, predict
from taskbench.measure.predict_metg import published_metg, stored_metg
from taskbench.reference import sc20

DEFAULT_NODES = "1,2,4,8,16,32,64,128,256,512,1024"
# The paper's Table 6: how far (mean factor) this prediction fell from measured strong scaling.
PAPER_ERROR = "the paper (Table 6) finds this within 1.43-1.96x in nodes and 1.15-1.29x in time on average"

PREDICT_FIT = Fit(short={"task granularity": "granularity", "granularity/METG": "ratio",
                         ">= 50% efficient": "efficient"})


def add_parser(subparsers, common):
    p = subparsers.add_parser("predict", parents=[common],
                              help="strong-scaling limit of an application from a system's METG")
    p.add_argument("--metg", action="append", metavar="SECONDS|NODES=SECONDS",
                   help="METG(50%%): one value for every node count, or one per node count (repeatable)")
    p.add_argument("--system", help="take the METG from this system's latest stored metg campaign")
    p.add_argument("--campaign", help="with --system: this metg campaign instead of the latest")
    p.add_argument("--reference-system", metavar="NAME",
                   help="the SC20 paper's published METG per node count of this system: its label or its "
                        "published name (`taskbench reference --all`), e.g. MPI, Charm++ or "
                        "mpi_bulk_synchronous, or a system here that runs a paper row (`taskbench systems`); "
                        "Cori's nodes, 32 cores")
    p.add_argument("--pattern", default="stencil_1d", help="with --reference-system: the pattern (stencil_1d)")
    p.add_argument("--allow-unreliable", action="store_true",
                   help="with --system: predict from a METG its campaign marked unreliable too")
    p.add_argument("--work", type=positive_float, required=True,
                   help="the application's total work in core-seconds (one-node time x cores per node)")
    tasks = p.add_mutually_exclusive_group(required=True)
    tasks.add_argument("--tasks-per-core", type=positive_float,
                       help="tasks each core runs (time steps of a graph one task per core wide)")
    tasks.add_argument("--tasks", type=positive_int, help="a fixed total number of tasks")
    p.add_argument("--cores-per-node", type=positive_int,
                   help="cores per node (default: with --reference-system the published machine's, else this "
                        "machine's)")
    p.add_argument("--nodes", help=f"node counts to predict ({DEFAULT_NODES}); with NODES=SECONDS "
                                   "METGs, their node counts")
    return p


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{what} '{text}': not a number", EXIT_USAGE)
    if not value > 0:
        raise UserError(f"{what} '{text}': must be positive", EXIT_USAGE)
    return value


def _node_count(text: str, what: str) -> int:
    value = _number(text, what)
    if value != int(value):
        raise UserError(f"{what} '{text}': must be a whole number of nodes", EXIT_USAGE)
    return int(value)


def _metg_by_nodes(args, ctx) -> dict[int, float]:
    given = [option for option, value in (("--metg", args.metg), ("--system", args.system),
                                          ("--reference-system", args.reference_system)) if value]
    if len(given) > 1:
        raise UserError(f"{' and '.join(given)}: give the METG one way: --metg SECONDS (or NODES=SECONDS ...), "
                        "--system NAME or --reference-system LABEL", EXIT_USAGE)
    if not given:
        raise UserError("give the METG: --metg SECONDS (or NODES=SECONDS ...), --system NAME or --reference-system "
                        "LABEL", EXIT_USAGE)
    if args.reference_system:
        if args.nodes:
            raise UserError("--nodes: with --reference-system the node counts are the paper's", EXIT_USAGE)
        return published_metg(ctx, args.reference_system, args.pattern)
    nodes = [_node_count(n, "--nodes") for n in (args.nodes or DEFAULT_NODES).split(",")]
    if args.system:
        ctx.read_only = True
        metg = stored_metg(ctx, args.system, args.campaign, args.allow_unreliable)
        return {n: metg for n in nodes}
    per_node = [m for m in args.metg if "=" in m]
    if per_node and len(per_node) != len(args.metg):
        raise UserError("--metg: either one SECONDS or NODES=SECONDS for each node count, not both", EXIT_USAGE)
    if not per_node:
        if len(args.metg) > 1:
            raise UserError("--metg: one SECONDS value, or NODES=SECONDS per node count", EXIT_USAGE)
        metg = _number(args.metg[0], "--metg")
        return {n: metg for n in nodes}
    if args.nodes:
        raise UserError("--nodes: with NODES=SECONDS METGs the node counts are theirs", EXIT_USAGE)
    table = {}
    for item in per_node:
        n, _, seconds = item.partition("=")
        table[_node_count(n, "--metg NODES")] = _number(seconds, f"--metg {n}=")
    return table


def main(args, ctx) -> int:
    metg_by_nodes = _metg_by_nodes(args, ctx)
    # The published METGs are Cori's per node: so are its nodes' cores, unless told otherwise.
    machine_cores = sc20.CORI.processors if args.reference_system else provenance.available_cores()
    cores = args.cores_per_node or machine_cores
    if args.reference_system and not args.cores_per_node:
        ctx.console.note(f"{cores} cores per node, as {sc20.CORI.name} (--cores-per-node for another)")
    app = Application(args.work, cores, args.tasks_per_core, args.tasks)
    result = predict(app, metg_by_nodes)
    figures = units.Figures(ctx.console.quiet)
    rows = [[figures.integer(r.nodes), figures.integer(r.cores), figures.integer(r.tasks),
             figures.seconds(r.granularity), figures.seconds(r.metg), figures.number(r.margin, ".2f"),
             figures.seconds(r.ideal_time), "yes" if r.efficient else "no"]
            for r in result.rows]
    ctx.console.table("predicted strong scaling: ideal time, efficient (>= 50%) while the task "
                      "granularity is at least METG (ratio granularity/METG >= 1)",
                      ["nodes", "cores", "tasks", "task granularity", "METG", "granularity/METG",
                       "ideal time", ">= 50% efficient"], rows, PREDICT_FIT)
    if result.limit is None:
        print(f"limit: below METG already at {units.count(result.rows[0].nodes, 'node')}: "
              "the application's tasks are too small for this system")
    elif result.beyond_the_rows:
        print(f"limit: none up to {units.integer(result.limit.nodes)} nodes (still >= 50% efficient, "
              f"time {units.seconds(result.limit.ideal_time)}); larger --nodes finds it")
    else:
        print(f"limit: {units.integer(result.limit.nodes)} nodes, time to solution "
              f"{units.seconds(result.limit.ideal_time)}")
    if result.crossing_nodes is not None:
        print(f"ideal scaling meets METG at {units.significant(result.crossing_nodes)} nodes, "
              f"time to solution {units.seconds(result.crossing_time)}")
    ctx.console.note(PAPER_ERROR)
    return EXIT_OK
