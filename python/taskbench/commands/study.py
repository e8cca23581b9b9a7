"""`taskbench study NAME`: a preset grid of runs reproducing a paper's figure, stored as a campaign
of kind "study", its table printed at the end (taskbench.studies has the presets).

Re-running the same request (preset, --quick, --systems, --reps) continues the latest unfinished
campaign of it, as `--resume` does: stored runs are reused, only the missing ones run.
"""

from __future__ import annotations

from taskbench import provenance, report, studies, units
from taskbench.console import Fit
from taskbench.commands.options import (add_simulate_options, cluster_from, count, positive_float, positive_int,
                                        simulated_nodes)
from taskbench.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED, EXIT_USAGE, UserError
from taskbench.measure.sweep import campaign
from taskbench.measure.analysis import background_load
from taskbench.measure.noise import warn_if_noisy
from taskbench.hosts.simulated import find as find_platform
from taskbench.studies import execute, metg_results, results, simulated_study

DEFAULT_RETRIES = 2


def add_parser(subparsers, common):
    p = subparsers.add_parser("study", parents=[common], help="run a study preset (`--list` shows them)")
    p.add_argument("name", nargs="?", help="the preset (see --list)")
    p.add_argument("--list", action="store_true", help="list the presets")
    p.add_argument("--systems", help="comma-separated systems instead of the preset's")
    p.add_argument("--reps", type=positive_int, help="repetitions of every run, the fastest counts "
                                            "(default: the preset's; 1 with --quick)")
    p.add_argument("--quick", action="store_true", help="the preset's small grid (tests, CI)")
    p.add_argument("--retries", type=count,
                   help="rounds of one more try for points whose fastest run shared the machine "
                        "with other processes (default 2; 0 with --quick, whose runs are too short "
                        "to measure that)")
    p.add_argument("--timeout", type=positive_float, default=120.0, help="seconds before one run is killed (120)")
    p.add_argument("--campaign", help="name of a new campaign (default: study-NAME-TIME)")
    p.add_argument("--resume", nargs="?", const="", metavar="NAME",
                   help="continue a study campaign (default: the latest unfinished one of NAME)")
    p.add_argument("--html", help="also write the HTML report of this campaign to this file")
    p.add_argument("--hosts", metavar="FILE", help="a cluster description: the study over its first 1, 2, 4, "
                   "... N hosts (scaling; docs/clusters.md)")
    p.add_argument("--launcher", choices=["mpirun", "srun"],
                   help="with --hosts: start the MPI systems' ranks with this; srun inside a Slurm allocation "
                        "implies --hosts slurm (docs/slurm.md)")
    p.add_argument("--allow-unreliable", action="store_true",
                   help="draw the findings' ratios from METGs their sweep marked unreliable too (marked so)")
    add_simulate_options(p, "a sweep of every value at each, as wide as their cores")
    p.add_argument("--steps", type=positive_int,
                   help=f"with --simulate: timesteps of every simulated run ({simulated_study.DEFAULT_STEPS})")
    p.add_argument("--values", metavar="V,V,...",
                   help="with --simulate: only these values of the study's parameter (a simulated sweep at 64 nodes "
                        "costs minutes a run)")
    return p


def _size(study, ctx) -> tuple[str, str]:
    """(default systems, "full / quick" size): runs of a grid study, sweeps of a METG study."""
    systems = study.default_systems(ctx.registry)
    if study.kind == "metg":
        cores = provenance.available_cores()
        full, quick = len(study.sweeps(False, cores)), len(study.sweeps(True, cores))
        return ", ".join(systems), f"{full} / {quick} METG sweeps; full run {study.full_minutes}"
    full = len(study.grid(systems, False, study.reps))
    quick = len(study.grid(systems, True, study.quick_reps))
    return ", ".join(systems), f"{full} / {quick} runs"


def _list(ctx) -> int:
    rows = [[study.name, study.title, *_size(study, ctx), study.paper] for study in studies.PRESETS.values()]
    # The systems and the paper's claim are paragraphs: below the table on a terminal.
    ctx.console.table("study presets", ["study", "what", "systems", "size (full / quick)", "paper"], rows,
                      Fit(notes=("systems", "paper"), keyed_by="study"))
    return EXIT_OK


def _request(args, study, ctx) -> tuple[list[str], int, int]:
    systems = ([s.strip() for s in args.systems.split(",") if s.strip()] if args.systems
               else study.default_systems(ctx.registry))
    if not systems:
        raise UserError("--systems: name at least one system")
    reps = args.reps or (study.quick_reps if args.quick else study.reps)
    retries = args.retries if args.retries is not None else (0 if args.quick else DEFAULT_RETRIES)
    return list(dict.fromkeys(systems)), reps, retries


def _campaign(args, ctx, study) -> str:
    """The campaign the study executes: resumed, an unfinished one of the same request continued,
    or created; claimed before anything runs."""
    store = ctx.store
    if args.resume is not None:
        opened = campaign.resumed(store, execute.resume_target(store, study, args.resume))
    else:
        name, params = _new_campaign(args, ctx, study)
        opened = campaign.created(store, execute.KIND, name, params, ctx.git_revision,
                                  None if args.campaign else execute.unfinished_like(store, params))
    if opened.stored is not None:
        done = "continuing the unfinished" if opened.continued else "resuming"
        stored = units.count(execute.stored_runs(store, opened.stored), "run")
        ctx.console.note(f"{done} {opened.name}: {stored} already stored")
    else:
        _announce(ctx, study, opened.name, opened.params, args.quick)
    return opened.name


def _new_campaign(args, ctx, study) -> tuple[str, dict]:
    """The name and params of a new campaign of the study, as the command asks for it."""
    systems, reps, retries = _request(args, study, ctx)
    name = args.campaign or campaign.new_name(ctx.store, "study", study.name)
    cluster = cluster_from(args.hosts, allocation_by_default=args.launcher == "srun")
    if args.launcher and cluster is None:
        raise UserError(f"--launcher {args.launcher}: a study picks the launcher only across hosts (--hosts; "
                        "srun inside a Slurm allocation)", EXIT_USAGE)
    if args.simulate:
        return name, _simulated_params(args, ctx, study, name)
    return name, execute.planned(study, ctx.registry, ctx.layout.build_dir, systems, args.quick, reps, args.timeout,
                                 retries, name, cluster, args.launcher)


def _announce(ctx, study, name: str, params: dict, quick: bool) -> None:
    """A new campaign: what cannot run or give a breakdown, the plan's notes, and its size."""
    for system, reason in params["unavailable"].items():
        ctx.console.warn(f"{system} is not available: {reason}")
    for system, reason in params.get("no_breakdown", {}).items():
        ctx.console.note(f"{system} runs without a breakdown: {reason}")
    for note in params.get("notes", []):
        ctx.console.warn(note)
    reps = params["reps"]
    sweeps = units.count(len(params.get("sweeps", [])), "METG sweep")
    size = (f"{sweeps} of {units.count(reps, 'repetition')}" if study.kind == "metg"
            else f"{len(params['grid'])} runs, best of {reps}"
            + (f", then {sweeps}" if params.get("sweeps") else ""))
    ctx.console.note(f"campaign {name}: study {study.name}{' (quick)' if quick else ''}, {size}; "
                     f"stored in {ctx.store.path}")


def _simulated_params(args, ctx, study, name: str) -> dict:
    """A METG study on a simulated platform (studies/simulated_study.py): its sweeps per node count."""
    if study.kind != "metg":
        raise UserError(f"--simulate: study {study.name} is not a METG study (a simulated platform sweeps METG)",
                        EXIT_USAGE)
    for option in ("hosts", "launcher", "reps", "retries"):
        if getattr(args, option) is not None:
            raise UserError(f"--{option} does not go with --simulate: a simulated run is deterministic and its "
                            "ranks are smpirun's", EXIT_USAGE)
    systems = ([s.strip() for s in args.systems.split(",") if s.strip()] if args.systems
               else simulated_study.default_systems(study, ctx.registry))
    if not systems:
        have = ", ".join(sorted({s.simulates for s in ctx.registry if s.simulates}))
        raise UserError(f"--simulate: none of study {study.name}'s systems has a simulated build (these have: {have}; "
                        "name them with --systems)", EXIT_USAGE)
    values = [v.strip() for v in args.values.split(",") if v.strip()] if args.values else None
    return simulated_study.campaign_params(study, ctx.registry, systems, args.quick, args.timeout,
                                           find_platform(args.simulate), args.nodes or [1],
                                           args.steps or simulated_study.DEFAULT_STEPS, name, values)


def main(args, ctx) -> int:
    if args.list:
        return _list(ctx)
    if not args.name:
        raise UserError("name a study (`taskbench study --list` shows them)")
    simulated_nodes(args, None)  # refuses --nodes without --simulate
    for option in ("steps", "values"):
        if getattr(args, option) is not None and not args.simulate:
            raise UserError(f"--{option} goes with --simulate (a study on this machine runs its preset's)", EXIT_USAGE)
    study = studies.get(args.name)
    if args.html:
        report.check_html_path(args.html, ctx.console)
    name = _campaign(args, ctx, study)
    try:
        stats = execute.run_campaign(study, ctx.store, ctx.registry, ctx.layout.build_dir, name, ctx.console,
                                     ctx.git_revision)
    except KeyboardInterrupt:
        # A METG study's runs are in its sweeps' campaigns: count those too.
        stored = execute.stored_runs(ctx.store, ctx.store.campaign(name))
        raise UserError(f"interrupted: {stored} runs stored; re-run the same command "
                        f"or `{ctx.command('study', study.name, '--resume', name)}` to continue", EXIT_INTERRUPTED)
    result = results.load(ctx.store, name)
    metg_result = result if study.kind == "metg" else getattr(result, "metg", None)
    if metg_result is not None:
        metg_result.allow_unreliable = args.allow_unreliable
    background = background_load(result.runs)
    noise = f", background load {background:.2f} cores" if background is not None else ""
    study = simulated_study.shown_as(study, result)
    ctx.console.table(f"{name}: {study.title}{noise}", *study.table(result, units.Figures(ctx.console.quiet)))
    if not ctx.console.quiet:
        for line in study.findings(result):
            ctx.console.line(line)
    ctx.console.note(f"{units.count(stats.executed, 'run')} executed, {stats.reused} reused from the store, "
                     f"{len(stats.failed)} failed")
    warn_if_noisy(ctx.console, background, "study")
    if args.html:
        # A METG study's sweeps are campaigns of their own: the report shows their curves (Fig. 7).
        names = [name] + metg_results.child_campaigns(result.campaign)
        ctx.console.note(f"report: {report.write_report(ctx.store, args.html, names, ctx.console)}")
    return EXIT_RUNS_FAILED if stats.failed else EXIT_OK
