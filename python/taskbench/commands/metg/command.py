"""`taskbench metg SYSTEM... --pattern P --kernel K`: the adaptive sweep and the METG table.

`taskbench metg --default` is the project's main measurement: every available default system,
stencil_1d, compute_bound, 1000 steps, width = cores, METG(50%) over 3 repetitions, then the
HTML report (taskbench-report.html unless --html says otherwise).

Every METG comes with its 95% interval (measure/metg/estimate.py); one whose interval is too wide,
or whose runs were disturbed, or a missing one where other processes disturbed the runs, is
marked unreliable (measure/metg/reliability.py) in the table, the report and the campaign's stored
results; with --strict such a campaign exits EXIT_UNRELIABLE instead of 0.
"""

from __future__ import annotations

from taskbench import report
from taskbench.commands.metg import simulated
from taskbench.commands.metg.params import PLANS, sweep_params
from taskbench.commands.metg.resume import refuse_what_it_would_ignore
from taskbench.commands.metg.sweep import exit_status, sweep
from taskbench.commands.options import (add_launch_options, add_simulate_options, count, counted_kernel, kernel_help,
                                       non_negative, pattern_help, percentage, percentage_or_zero, positive_int,
                                       simulated_nodes)
from taskbench.errors import EXIT_UNRELIABLE
from taskbench.measure.metg.methods import METG_METHODS
from taskbench.reference import published

DEFAULT_HTML = "taskbench-report.html"


def add_parser(subparsers, common):
    p = subparsers.add_parser("metg", parents=[common], help="sweep the problem size and compute METG")
    p.add_argument("systems", nargs="*", help="systems to compare (see `taskbench systems`)")
    p.add_argument("--default", action="store_true",
                   help="every available default system on stencil_1d/compute_bound, then the HTML report")
    p.add_argument("--pattern", default="stencil_1d", metavar="PATTERN", help=pattern_help("stencil_1d"))
    p.add_argument("--kernel", default="compute_bound", type=counted_kernel, metavar="KERNEL",
                   help=kernel_help("compute_bound"))
    p.add_argument("--steps", type=positive_int, default=1000, help="timesteps of every run (1000)")
    p.add_argument("--width", type=positive_int, help="points per timestep (default: the cores available)")
    p.add_argument("--radix", type=count,
                   help="dependencies per task of nearest, spread and their random forms: 0 (none, the paper's "
                        "Fig. 10 first point) to --width (the core's default: 3)")
    p.add_argument("--scratch", type=count, help="scratch bytes per task (memory kernels have a default)")
    p.add_argument("--flags", default="", help="more Task Bench flags for every run, e.g. \"-output 64\"")
    p.add_argument("--threshold", type=percentage, default=50.0, help="efficiency threshold in percent (50)")
    p.add_argument("--reps", type=positive_int,
                   help="repetitions of the whole curve (3; simulated: 1, every repetition the same)")
    p.add_argument("--tries", type=positive_int,
                   help="runs of a size near the threshold per repetition; the fastest counts (3; simulated: 1)")
    p.add_argument("--start-iter", type=positive_int,
                   help="first -iter (default per kernel: 65536 for compute_bound; a system not efficient there makes "
                        "the sweep go up)")
    p.add_argument("--refine", type=count, default=3, help="sizes added inside each bracketing step (3)")
    p.add_argument("--plan", choices=PLANS,
                   help="how the sizes are chosen: adaptive (coarse steps, refinement and tries against noise) or "
                        "bisect (towards the crossing, seeded from the previous node count's; deterministic runs "
                        "only) (adaptive; simulated: bisect)")
    p.add_argument("--max-interval", type=percentage, default=10.0,
                   help="mark a METG unreliable when its 95%% interval's half-width exceeds this percent of it (10)")
    p.add_argument("--target-interval", type=percentage_or_zero,
                   help="add repetitions of the sizes around each crossing until the METG's 95%% interval is within "
                        "this percent of it (5; 0: add none; simulated: 0)")
    p.add_argument("--interval-budget", type=non_negative, default=1.0,
                   help="the time those added repetitions may take, as a multiple of the sweep's own runs' (1)")
    p.add_argument("--metg-method", choices=METG_METHODS, default="fit",
                   help="fit: one monotone fit over every run, its interval by bootstrap over repetitions (default); "
                        "median: a METG per repetition, their median; paper: the SC20 paper's, the mean of the "
                        "repetitions per size, then one METG (docs/reference.md)")
    p.add_argument("--strict", action="store_true",
                   help=f"exit {EXIT_UNRELIABLE} when a METG is unreliable (its interval too wide, the runs it was "
                        "read from disturbed, or no METG while other processes disturbed the runs)")
    add_launch_options(p, 120.0, "; --width defaults to their cores")
    add_simulate_options(p, "a campaign each; --width defaults to their cores")
    p.add_argument("--campaign", help="name of the campaign (default: metg-PATTERN-KERNEL-TIME)")
    p.add_argument("--resume", nargs="?", const="", metavar="NAME",
                   help="continue an interrupted campaign (default: the latest unfinished one)")
    p.add_argument("--no-trace", dest="trace", action="store_false",
                   help="skip the one traced run per system at its METG (the report's Gantt charts)")
    p.add_argument("--html", help="also write the HTML report of this campaign to this file")
    p.add_argument("--reference", choices=published.CHOICES,
                   help="also show the paper's published METG for this pattern, in a table of its own "
                        "(docs/reference.md)")
    p.add_argument("--reference-nodes", type=positive_int, action="append", metavar="N",
                   help="the node counts of the published figures (repeatable; default 1)")
    p.add_argument("--external", action="append", metavar="NAME=CORES:COMMAND",
                   help="also sweep a command that takes the Task Bench flags and prints the original "
                        "summary lines, using CORES cores (repeatable; docs/harness.md)")
    return p


def main(args, ctx) -> int:
    simulated_nodes(args, None)  # refuses --nodes without --simulate
    if args.resume is not None and not args.simulate:  # --simulate refuses --resume itself
        refuse_what_it_would_ignore(args, add_parser)
    if args.simulate:
        return simulated.main(args, ctx)
    html = args.html or (DEFAULT_HTML if args.default else None)
    if html:
        report.check_html_path(html, ctx.console)
    resume = None if args.resume is None else args.resume or args.campaign or ""
    params = sweep_params(args, ctx) if resume is None else None  # a resumed campaign runs its stored ones
    analysis, stats = sweep(ctx, params, name=args.campaign, resume=resume, trace=args.trace,
                            reference=args.reference, reference_nodes=args.reference_nodes)
    if html:
        written = report.write_report(ctx.store, html, [analysis.name], ctx.console,
                                      reference_nodes=(args.reference_nodes or [1]) if args.reference else None)
        ctx.console.note(f"report: {written}")
    return exit_status(ctx, analysis, stats, args.strict)
