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

import re
import shlex

from taskbench import provenance, report, units
from taskbench.commands import metg_simulated
from taskbench.commands import metg_resume, short_steps
from taskbench.commands.options import (add_launch_options, add_simulate_options, count, counted_kernel, kernel_help,
                                       non_negative, pattern_help, percentage, percentage_or_zero, positive_int,
                                       simulated_nodes)
from taskbench.errors import (EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED, EXIT_UNRELIABLE,
                              EXIT_USAGE, UserError)
from taskbench.hosts.option import cluster_from
from taskbench.measure.noise import DISTURBED_CORES
from taskbench.launch.runner import run_once
from taskbench.measure import analysis_cache, traces
from taskbench.measure.sweep import campaign
from taskbench.measure.analysis import results_record
from taskbench.measure.kernels import kernel_info
from taskbench.measure.metg.methods import METG_METHODS
from taskbench.measure.sweep.params import SweepParams
from taskbench.measure.sweep.bisect import PLAN as BISECT
from taskbench.reference import published
from taskbench.registry.external import add_externals, externals_from_specs
from taskbench.report.tables import answer, campaign_title, metg_fit, metg_table, notes_below_table

DEFAULT_HTML = "taskbench-report.html"
# Task Bench flags the sweep sets itself from its options (SweepParams.flags): --flags may not.
OWNED_FLAGS = {"-steps": "give --steps instead", "-width": "give --width instead",
               "-type": "give --pattern instead", "-kernel": "give --kernel instead",
               "-iter": "the sweep chooses it (from --start-iter)", "-radix": "give --radix instead",
               "-scratch": "give --scratch instead"}
# Task Bench flags that write or print what the sweep keeps itself: every run's report and output
# are stored, and one run per system is traced for the report.
OUTPUT_FLAGS = {"-json": "every run's report is stored (`taskbench export --json FILE` writes them)",
                "-trace": "the sweep traces one run per system near its METG, stored for the report "
                          "(leave out --no-trace)",
                "-v": "each run's output is stored, not shown (`taskbench export --json FILE`: stdout_tail)",
                "-vv": "each run's output is stored, not shown (`taskbench export --json FILE`: stdout_tail)"}
PLANS = ("adaptive", BISECT)  # SweepParams.plan
BUSY_BACKGROUND = DISTURBED_CORES  # a campaign's average load above which its figures are called noisy


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
    p.add_argument("--start-iter", type=positive_int, help="first -iter (default per kernel: 65536 for compute_bound; a system not efficient there makes the sweep go up)")
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
    add_simulate_options(p, node_counts=True)
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


def _systems(args, ctx, externals: dict) -> list[str]:
    registry = ctx.registry
    add_externals(registry, externals)
    named = [*args.systems, *externals]
    if args.default:
        chosen = []
        for s in registry.defaults():
            if s.available:
                chosen.append(s.name)
            else:  # never silently skipped
                ctx.console.warn(f"default system {s.name} skipped: {s.reason}")
        if not chosen:
            raise UserError("no default system is available (see `taskbench systems`)", EXIT_ENVIRONMENT)
        return chosen + [n for n in named if n not in chosen]
    if not named:
        raise UserError("name at least one system (or --default, or --external); `taskbench systems` lists them")
    for name in named:
        registry.require_available(name)
    return list(dict.fromkeys(named))


def _params(args, ctx) -> SweepParams:
    info = kernel_info(args.kernel)
    try:
        extra = shlex.split(args.flags)
    except ValueError as exc:
        raise UserError(f"--flags: {exc}")
    for flag in extra:
        if flag in OWNED_FLAGS:  # the run would follow --flags while the campaign stores the option
            raise UserError(f"--flags: {flag} is the sweep's own: {OWNED_FLAGS[flag]} (the campaign stores "
                            "what the options say)")
        if flag in OUTPUT_FLAGS:  # the harness's own -json comes after it; a -trace every run would overwrite
            raise UserError(f"--flags: {flag} is not for a sweep: {OUTPUT_FLAGS[flag]}")
    externals = externals_from_specs(args.external)
    cluster = cluster_from(args.hosts, allocation_by_default=args.launcher == "srun")
    hosts = None if cluster is None else campaign.hosts_params(cluster)
    simulation = getattr(args, "simulation", None)  # metg_simulated.py: one node count's
    cores = cluster.cores if cluster is not None else provenance.available_cores()
    once = simulation is not None  # deterministic: a repetition, a try, no added repetitions, a bisection
    plan = args.plan or (BISECT if once else "adaptive")
    if plan == BISECT and not once:
        raise UserError("--plan bisect: only for deterministic runs (--simulate): a measured run's noise would "
                        "send a bisection the wrong way at the first disturbed run", EXIT_USAGE)
    return SweepParams(
        systems=_systems(args, ctx, externals), externals=externals, pattern=args.pattern, kernel=args.kernel,
        steps=args.steps, width=args.width or (simulation.cores if once else cores), radix=args.radix,
        threshold=args.threshold / 100,
        reps=args.reps or (1 if once else 3), tries=args.tries or (1 if once else 3),
        start_iter=args.start_iter or info.start_iter,
        refine_points=args.refine, scratch=args.scratch or info.scratch or None, extra_flags=extra,
        timeout=args.timeout, ranks=args.ranks, threads_per_rank=args.threads_per_rank, launcher=args.launcher,
        max_interval=args.max_interval / 100,
        target_interval=(args.target_interval if args.target_interval is not None else 0.0 if once else 5.0) / 100,
        interval_budget=args.interval_budget, hosts=hosts, metg_method=args.metg_method,
        simulation=simulation.params() if simulation is not None else None,
        plan=plan, seeds=getattr(args, "seeds", None) or {})


def main(args, ctx) -> int:
    simulated_nodes(args, None)  # refuses --nodes without --simulate
    if args.resume is not None and not args.simulate:  # --simulate refuses --resume itself
        metg_resume.refuse_what_it_would_ignore(args, add_parser)
    if args.simulate:
        return metg_simulated.main(args, ctx, sweep_one)
    html = args.html or (DEFAULT_HTML if args.default else None)
    if html:
        report.check_html_path(html, ctx.console)
    name, params, complete = _open(args, ctx)
    if not complete:
        _warn_if_loaded(ctx)
    stats = _sweep(ctx, name, params)
    analysis = analysis_cache.analysis(ctx.store, name)  # the settle lines' own, computed once
    if args.trace:
        traces.trace_campaign(ctx.store, ctx.registry, name, params, analysis, ctx.console, ctx.git_revision)
    _show(ctx, analysis)
    if args.reference:
        show_published(ctx, analysis.params, args.reference_nodes)
    _publish(ctx.store, name, analysis)
    _warn_about_results(ctx, analysis, stats)
    short_steps.warn(ctx, analysis)
    if html:
        written = report.write_report(ctx.store, html, [name], ctx.console,
                                      reference_nodes=(args.reference_nodes or [1]) if args.reference else None)
        ctx.console.note(f"report: {written}")
    return _exit_status(ctx, analysis, stats, args.strict)


def sweep_one(args, ctx):
    """One campaign opened, swept, shown and stored (a node count's, under --simulate): its
    analysis and the exit status it calls for; no trace, no report."""
    name, params, _ = _open(args, ctx)
    stats = _sweep(ctx, name, params)
    analysis = analysis_cache.analysis(ctx.store, name)  # the settle lines' own, computed once
    _show(ctx, analysis)
    _publish(ctx.store, name, analysis)
    _warn_about_results(ctx, analysis, stats)
    return analysis, _exit_status(ctx, analysis, stats, args.strict)


def _open(args, ctx) -> tuple[str, SweepParams, bool]:
    """The campaign to sweep, its parameters, and whether it is complete already (a resumed one
    that has nothing left to run, replayed from the store)."""
    store = ctx.store

    def new() -> tuple[str, dict]:
        params = _params(args, ctx)
        _preflight(ctx, params)
        return args.campaign or campaign.new_name(store, "metg", params.pattern, params.kernel), params.to_dict()

    resume = None if args.resume is None else args.resume or args.campaign or ""
    opened = campaign.open(store, "metg", resume=resume, new=new, git_revision=ctx.git_revision)
    name, params = opened.name, SweepParams.from_dict(opened.params)
    if opened.stored is None:
        ctx.console.note(f"campaign {name}: {', '.join(params.systems)}; {params.pattern}, "
                         f"{params.kernel}, {units.count(params.steps, 'step')} x {params.width} wide, "
                         f"{units.count(params.reps, 'rep')}, METG({params.threshold:.0%}); stored in {store.path}")
        return name, params, False
    add_externals(ctx.registry, params.externals)
    complete = opened.stored["status"] == "done"
    if complete:
        ctx.console.note(f"campaign {name} is already complete; showing its results")
    else:
        ctx.console.note(f"resuming {name}: {units.count(len(store.runs(name)), 'run')} already stored")
    return name, params, complete


def _sweep(ctx, name: str, params: SweepParams):
    """Runs what the campaign lacks; a complete campaign is replayed from the store: its runs and
    failures counted, nothing run."""
    try:
        return campaign.run_sweep(ctx.store, ctx.registry, name, params, ctx.console, ctx.git_revision)
    except KeyboardInterrupt:
        raise UserError(f"interrupted: {units.count(len(ctx.store.runs(name)), 'run')} stored; continue with "
                        f"`{ctx.command('metg', '--resume', name)}`", EXIT_INTERRUPTED)


def _show(ctx, analysis) -> None:
    """The METG table, the answer under it, and where the peaks came from."""
    columns, rows = metg_table(analysis, numeric=ctx.console.quiet)
    ctx.console.table(campaign_title(analysis), columns, rows, metg_fit(analysis.params.threshold, analysis.params.reps))
    if not ctx.console.quiet:
        for line in answer(analysis):
            ctx.console.line(line)
    for line in notes_below_table(analysis):
        ctx.console.note(line)


def show_published(ctx, params: SweepParams, nodes: list[int] | None) -> None:
    """The paper's figures for the campaign's graph, in a table of their own (published.py)."""
    found = published.metg_table(params.pattern, params.graphs, params.kernel, nodes or [1], ctx.console.quiet,
                                 published.ports((s.name, s.paper_system) for s in ctx.registry))
    if isinstance(found, str):
        ctx.console.note(found)
    else:
        ctx.console.table(*found)


def _publish(store, name: str, analysis) -> None:
    """Stores with the campaign what a reader of the store alone needs: the external systems
    measured against their own best (the table says so too, but they must not be taken for our
    peak) and the results, METG per system, reliable or not."""
    own = {c.system: {"cores": c.own_peak.cores, "own_best": c.own_peak.own, "machine_peak": c.own_peak.machine}
           for c in analysis.curves.values() if c.own_peak is not None}
    if own:
        store.annotate_campaign_machine(name, "external_own_peaks", own)
    store.set_campaign_results(name, results_record(analysis))


def _warn_about_results(ctx, analysis, stats) -> None:
    """Each unreliable METG and warning, what ran, and a busy machine."""
    for curve in analysis.curves.values():
        if curve.summary.unreliable:
            ctx.console.warn(f"{curve.system}: METG UNRELIABLE, not a result: {'; '.join(curve.summary.unreliable)}")
        for warning in curve.summary.warnings:
            if warning not in curve.summary.unreliable:
                ctx.console.warn(f"{curve.system}: {warning}")
    repeated = (f" ({stats.repeated_for_load} of them again because other processes disturbed the run)"
                if stats.repeated_for_load else "")
    ctx.console.note(f"{units.count(stats.executed, 'run')} executed{repeated}, {stats.reused} reused from the "
                     f"store, {len(stats.failed)} failed")
    warn_if_noisy(ctx, analysis.background_load, "campaign")


def warn_if_noisy(ctx, background: float | None, what: str) -> None:
    """A campaign or study whose runs shared the machine: its figures say less than they seem."""
    if background is not None and background > BUSY_BACKGROUND:
        ctx.console.warn(f"other processes used {background:.2f} cores on average while this {what} ran: its "
                         "figures are noisy")


def _exit_status(ctx, analysis, stats, strict: bool) -> int:
    # Failed runs (3) take precedence over --strict's unreliable METG (5): they need a look
    # whatever the noise.
    if stats.failed:
        return EXIT_RUNS_FAILED
    unreliable = [c for c in analysis.curves.values() if c.summary.unreliable]
    if unreliable and strict:
        ctx.console.warn(f"--strict: {units.count(len(unreliable), 'unreliable METG')} "
                         f"({', '.join(c.system for c in unreliable)}): exit status {EXIT_UNRELIABLE}")
        return EXIT_UNRELIABLE
    return EXIT_OK


def _preflight(ctx, params: SweepParams) -> None:
    """Each system checks the sweep's flags before the campaign exists, so a typo in --flags or
    --pattern is one line now instead of a campaign of failed runs. Once per system: the sweep's
    flags differ only in -iter. With -h added, the core's parser reads every flag (the system's
    own too, and the graph's limits at the sweep's real size) and exits 2 at a mistake, else
    prints the help and exits 0, running nothing (docs/spec.md §4). An external command does not
    know -h: one tiny run instead, which must print the summary lines."""
    tiny = params.flags(1)
    tiny[tiny.index("-steps") + 1] = "1"
    for name in params.systems:
        flags = tiny if name in params.externals else [*params.flags(params.start_iter), "-h"]
        system = ctx.registry.get(name)
        outcome = run_once(system, flags, campaign.sweep_options(system, params), timeout=60)
        if outcome.status == "bad_flags":
            raise _in_options(params, outcome.reason) or campaign.rejected_flags(name, outcome.reason,
                                                                                 "the sweep's flags")
        if name in params.externals and not outcome.ok:
            raise UserError(f"external {name} failed its first run ({outcome.status}): {outcome.reason}",
                            EXIT_USAGE)


# The core's line for a graph its width cannot hold (docs/spec.md, -radix).
RADIX_ABOVE_WIDTH = re.compile(r"-radix: invalid value '(\d+)'( \(the default\))?; expected at most -width \((\d+)\)")


def _in_options(params: SweepParams, reason: str) -> UserError | None:
    """The core's refusal of a flag the sweep set from an option, said in the options' words: the
    user gave --radix and --width (or their defaults), never -radix and -width."""
    found = RADIX_ABOVE_WIDTH.search(reason)
    if found is None:
        return None
    radix, default, width = int(found.group(1)), bool(found.group(2)), int(found.group(3))
    asked = (f"{params.pattern} takes {radix} dependencies per task by default (the core's radix)" if default
             else f"--radix {radix} needs a width of {radix} or more")
    return UserError(f"{asked}, and the sweep is {width} wide (--width; default: the cores here): add --width "
                     f"{radix}, or give --radix {width} or less", EXIT_USAGE)


def _warn_if_loaded(ctx) -> None:
    load = provenance.load_average()
    cores = provenance.available_cores()
    if load and load[0] > 0.5 * cores:
        ctx.console.warn(f"the machine is busy (load average {load[0]:.1f} on {units.count(cores, 'core')}): "
                         "expect noisy figures")
