"""`taskbench metg SYSTEM --simulate PLATFORM --nodes 1,2,4,...`: a METG campaign per node count,
each on the platform's first N nodes (width: their cores unless --width), run by the system's
SimGrid build (docs/simulation.md); then METG against nodes, beside the paper's published
figure of the system's paper row where it has one (`--reference sc20`: also in the report).

Simulated runs are deterministic, so a campaign makes one repetition and one try of each size
unless told otherwise, and bisects towards the crossing (measure/sweep/bisect.py), starting where
the previous node count's METG crossed; its campaigns are stored as simulated (their machine is
the platform's), named for the platform and node count, and never ranked with measured ones."""

from __future__ import annotations

import time
from dataclasses import replace

from taskbench import report, units
from taskbench.commands.metg.params import sweep_params
from taskbench.commands.metg.sweep import exit_status, sweep
from taskbench.errors import EXIT_OK, EXIT_USAGE, UserError
from taskbench.hosts.simulated import Simulation, find
from taskbench.launch.smpirun import simulated_systems
from taskbench.measure.sweep import campaign
from taskbench.measure.sweep.bisect import crossings
from taskbench.report.tables import against_nodes_table

# Options that describe real machines, refused with --simulate: what to do instead.
REAL_ONLY = {"default": "name the systems to simulate", "external": "an external command runs on this machine",
             "hosts": "the platform's nodes are the hosts", "launcher": "smpirun starts the simulated ranks",
             "resume": "give --campaign NAME: its node counts' campaigns (NAME-4n) resume where they stopped"}


def _refuse_real_options(args) -> None:
    for option, instead in REAL_ONLY.items():
        if getattr(args, option) not in (None, False, [], ""):
            raise UserError(f"--{option} does not go with --simulate: {instead}", EXIT_USAGE)
    if args.ranks is not None or args.threads_per_rank is not None:
        raise UserError("--ranks and --threads-per-rank do not go with --simulate: a rank on each simulated core "
                        "of --nodes nodes", EXIT_USAGE)


def main(args, ctx) -> int:
    """A campaign per node count, each the same sweep (params.py) on the platform's first N
    nodes, its width their cores unless --width, seeded from the previous count's crossings."""
    _refuse_real_options(args)
    platform = find(args.simulate)
    if args.html:
        report.check_html_path(args.html, ctx.console)
    first = sweep_params(args, ctx, deterministic=True, names=simulated_systems(ctx.registry, args.systems))
    status, results, seeds = EXIT_OK, [], {}
    node_counts = args.nodes or [1]
    for nodes in node_counts:
        simulation = Simulation(platform, nodes)
        # seeds: where the bisection looks first, the previous node count's crossings.
        params = replace(first, simulation=simulation, width=args.width or simulation.cores, seeds=seeds)
        name = (f"{args.campaign}-{nodes}n" if args.campaign else
                campaign.new_name(ctx.store, "metg", "sim", platform.name, f"{nodes}n", args.pattern, args.kernel))
        ctx.console.note(f"{platform.name}, {units.count(nodes, 'node')}: {simulation.cores} simulated cores")
        started = time.perf_counter()
        # No trace: its times would be this machine's.
        analysis, stats = sweep(ctx, params, name=name, resume=name if ctx.store.has_campaign(name) else None)
        wall = time.perf_counter() - started
        if stats.executed == 0 and stats.reused:  # replayed: the time to simulate is its stored runs'
            wall = sum(run["wall_seconds"] or 0.0 for run in ctx.store.runs(name))
            ctx.console.note(f"{units.count(nodes, 'node')}: replayed from the store; its runs took "
                             f"{units.seconds(wall)} of wall time to simulate")
        else:
            ctx.console.note(f"{units.count(nodes, 'node')} simulated in {units.seconds(wall)} of wall time")
        status = max(status, exit_status(ctx, analysis, stats, args.strict))
        results.append((nodes, analysis, wall))
        seeds = crossings(analysis)
    ctx.console.table(*against_nodes_table(platform.name, results, args.reference, ctx.registry, ctx.console.quiet))
    if len(results) > 1:
        ctx.console.note(f"{len(results)} node counts simulated in {units.seconds(sum(w for _, _, w in results))} "
                         "of wall time")
    if args.html:
        written = report.write_report(ctx.store, args.html, [a.name for _, a, _ in results], ctx.console,
                                      reference_nodes=node_counts if args.reference else None)
        ctx.console.note(f"report: {written}")
    return status
