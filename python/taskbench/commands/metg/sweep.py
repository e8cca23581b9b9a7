"""One METG campaign of `taskbench metg`, opened (new, or resumed), swept, shown and stored:
what the measured command does once and the simulated one once per node count (simulated.py),
with the same SweepParams (each node count's made from the first with dataclasses.replace)."""

from __future__ import annotations

import re

from taskbench import provenance, units
from taskbench.commands.metg import short_steps
from taskbench.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED, EXIT_UNRELIABLE, EXIT_USAGE, UserError
from taskbench.launch.runner import run_once
from taskbench.measure import analysis_cache, traces
from taskbench.measure.analysis import results_record
from taskbench.measure.noise import warn_if_noisy
from taskbench.measure.sweep import campaign
from taskbench.measure.sweep.params import SweepParams
from taskbench.reference import published
from taskbench.registry.external import add_externals
from taskbench.report.tables import answer, campaign_title, metg_fit, metg_table, notes_below_table

def sweep(ctx, params: SweepParams | None, *, name: str | None, resume: str | None, trace: bool = False,
          reference: str | None = None, reference_nodes: list[int] | None = None):
    """The campaign swept, shown and stored: (its analysis, its ExecutionStats). params: a new
    campaign's (None where it resumes one: its stored params run); name: the new one's (default
    metg-PATTERN-KERNEL-TIME); resume: --resume's campaign ("" for the latest unfinished); trace:
    one traced run per system at its METG; reference: the published table beside it."""
    name, params, complete = _open(ctx, params, name, resume)
    if not complete and params.simulation is None:  # simulated time: the machine's load is not in it
        _warn_if_loaded(ctx)
    stats = _run(ctx, name, params)
    analysis = analysis_cache.analysis(ctx.store, name)  # the settle lines' own, computed once
    if trace:
        traces.trace_campaign(ctx.store, ctx.registry, name, params, analysis, ctx.console, ctx.git_revision)
    _show(ctx, analysis)
    if reference:
        show_published(ctx, analysis.params, reference_nodes)
    _publish(ctx.store, name, analysis)
    _warn_about_results(ctx, analysis, stats)
    short_steps.warn(ctx, analysis)
    return analysis, stats


def _open(ctx, params: SweepParams | None, name: str | None, resume: str | None) -> tuple[str, SweepParams, bool]:
    """The campaign to sweep, its parameters, and whether it is complete already (a resumed one
    that has nothing left to run, replayed from the store)."""
    store = ctx.store
    if resume is not None:
        opened = campaign.resumed(store, campaign.resume_target(store, "metg", resume))
    else:
        _preflight(ctx, params)
        name = name or campaign.new_name(store, "metg", params.pattern, params.kernel)
        opened = campaign.created(store, "metg", name, params.to_dict(), ctx.git_revision)
    if opened.stored is None:  # created from `params`, which the store holds as they are
        ctx.console.note(f"campaign {opened.name}: {', '.join(params.systems)}; {params.pattern}, "
                         f"{params.kernel}, {units.count(params.steps, 'step')} x {params.width} wide, "
                         f"{units.count(params.reps, 'rep')}, METG({params.threshold:.0%}); stored in {store.path}")
        return opened.name, params, False
    params = SweepParams.from_dict(opened.params)
    add_externals(ctx.registry, params.externals)
    complete = opened.stored["status"] == "done"
    if complete:
        ctx.console.note(f"campaign {opened.name} is already complete; showing its results")
    else:
        ctx.console.note(f"resuming {opened.name}: {units.count(len(store.runs(opened.name)), 'run')} already stored")
    return opened.name, params, complete


def _run(ctx, name: str, params: SweepParams):
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
    fit = metg_fit(analysis.params.threshold, analysis.params.reps)
    ctx.console.table(campaign_title(analysis), columns, rows, fit)
    if not ctx.console.quiet:
        for line in answer(analysis):
            ctx.console.line(line)
    for line in notes_below_table(analysis):
        ctx.console.note(line)


def show_published(ctx, params: SweepParams, nodes: list[int] | None) -> None:
    """The paper's figures for the campaign's graph, in a table of their own (reference/published.py)."""
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
    warn_if_noisy(ctx.console, analysis.background_load, "campaign")


def exit_status(ctx, analysis, stats, strict: bool) -> int:
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
