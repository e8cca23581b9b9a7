"""`taskbench run SYSTEM [task-bench flags]`: one run, shown as a table and stored.

Harness options (--timeout, --ranks, ...) may stand anywhere; every other token after SYSTEM
goes to the system unchanged, so `taskbench run serial -h` shows the system's own flags.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from taskbench import launch, units
from taskbench.launch.smpirun import simulated_systems
from taskbench.hosts.simulated import Simulation, find
from taskbench.commands.options import add_launch_options, add_simulate_options, cluster_from, simulated_nodes
from taskbench.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED, UserError
from taskbench.launch import LaunchOptions
from taskbench.measure.sweep import campaign
from taskbench.measure.kernels import KERNELS, throughput, unit
from taskbench.measure.peak import load_peaks
from taskbench.measure.system_report import BREAKDOWN_PARTS, breakdown_of, hosts_of
from taskbench.paths import check_writable
from taskbench.registry.breakdown import with_breakdown
from taskbench.registry.external import add_externals, externals_from_specs
from taskbench.report.tables import per_host

# Harness options of `run` that take a value / that take none (the splitter needs to know).
OPTIONS_WITH_VALUE = {"--external", "--timeout", "--ranks", "--workers", "--threads-per-rank", "--launcher", "--hosts",
                      "--campaign", "--db", "--build-dir", "--simulate", "--nodes"}
OPTIONS_WITHOUT_VALUE = {"-q", "--quiet", "--breakdown"}
# After SYSTEM, these ask the system for its flags.
HELP_FLAGS = {"-h", "--help"}
# The system's own output, which the harness captures: shown after the table when asked for.
VERBOSE_FLAGS = {"-v", "-vv"}
# What the store keeps of a successful run's output (store/records.py, make_record).
KEPT_OUTPUT_CHARS = 1000


def split_argv(tokens: list[str]) -> tuple[list[str], list[str]]:
    """Harness tokens (options and SYSTEM) and the system's flags."""
    harness, system_flags, system_seen = [], [], False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        name = token.split("=", 1)[0]
        if name in OPTIONS_WITH_VALUE:
            harness.append(token)
            # --external names the system: every later token is the system's.
            system_seen = system_seen or name == "--external"
            if "=" not in token and i + 1 < len(tokens):
                harness.append(tokens[i + 1])
                i += 1
        elif token in OPTIONS_WITHOUT_VALUE or (not system_seen and token in ("-h", "--help")):
            harness.append(token)
        elif not system_seen and not token.startswith("-"):
            harness.append(token)
            system_seen = True
        else:
            system_flags.append(token)
        i += 1
    return harness, system_flags


def add_parser(subparsers, common):
    p = subparsers.add_parser("run", parents=[common], help="one run of one system, stored",
                              usage="taskbench run [options] SYSTEM [task-bench flags ...]")
    p.add_argument("system", nargs="?", metavar="SYSTEM",
                   help="a name from `taskbench systems` (or the NAME of --external)")
    p.add_argument("--external", metavar="NAME=CORES:COMMAND",
                   help="run a command that takes the Task Bench flags and prints the original "
                        "summary lines, counted as CORES cores (docs/harness.md)")
    add_launch_options(p, 600.0)
    add_simulate_options(p)
    p.add_argument("--campaign", help="store under this campaign name (default: run-SYSTEM-TIME)")
    p.add_argument("--breakdown", action="store_true",
                   help="ask the system for its work/overhead/idle/discovery breakdown "
                        "(its registry entry's `breakdown` key)")
    return p


def _system_name(args, ctx) -> str:
    externals = externals_from_specs([args.external] if args.external else [])
    add_externals(ctx.registry, externals)
    if args.system and externals and args.system not in externals:
        raise UserError(f"run one system: '{args.system}' or the --external {next(iter(externals))}")
    name = args.system or next(iter(externals), None)
    if name is None:
        raise UserError("name a system (`taskbench systems` lists them) or give --external NAME=CORES:COMMAND")
    return name


def main(args, ctx) -> int:
    # One run, stored as it went: on the CUDA stand-in too (the fault matrix), never a METG.
    name = _system_name(args, ctx)
    if args.simulate:  # the system's SimGrid build (`run mpi_p2p --simulate small` runs mpi_p2p_smpi)
        name = simulated_systems(ctx.registry, [name])[0]
    system = ctx.registry.require_available(name, figures=False)
    if HELP_FLAGS & set(args.system_flags):
        return system_help(system, args)
    if args.breakdown:
        system = with_breakdown(system, ctx.layout.build_dir, ctx.registry)
    store = ctx.store  # opened (and checked) before the run: a store it cannot use fails first
    flags, report_to = _report_file(list(args.system_flags), system, ctx.console)
    options = _launch_options(args)
    cluster = options.cluster
    params = {"systems": [system.name], "flags": flags, "ranks": args.ranks,
              "threads_per_rank": args.threads_per_rank, "launcher": args.launcher, "breakdown": args.breakdown}
    if cluster is not None:
        params["hosts"] = campaign.hosts_params(cluster)
    if options.simulation is not None:
        params["simulation"] = options.simulation.params()
    if system.standin:
        params["cuda_standin"] = system.note
    try:
        name, run = campaign.run_alone(store, system, flags, name=args.campaign, params=params,
                                       options=options, timeout=args.timeout, git_revision=ctx.git_revision)
    except KeyboardInterrupt:
        raise UserError("interrupted before the run ended: nothing was stored (`taskbench run` stores "
                        "finished runs only; run it again)", EXIT_INTERRUPTED)
    show(ctx, run, name)
    if report_to is not None:
        _write_report(ctx, run, report_to)
    if VERBOSE_FLAGS & set(flags):
        _show_output(run)
    if args.breakdown and run["status"] == "ok" and breakdown_of(run) is None:
        ctx.console.warn(f"{system.name} was asked for a breakdown but its report has none "
                         "(system_report.breakdown)")
    return EXIT_OK if run["status"] == "ok" else EXIT_RUNS_FAILED


def _report_file(flags: list[str], system, console) -> tuple[list[str], str | None]:
    """The flags without the user's `-json FILE`, and FILE: the harness gives every run a -json
    of its own (the report it stores), which would win over the user's; the stored report is
    written to FILE instead, checked now so that no run is lost to it. An external command's
    flags are its own: left as they are."""
    if system.external or "-json" not in flags[:-1]:
        return flags, None
    at = flags.index("-json")
    path = flags[at + 1]
    if "-trace" in flags[:-1] and Path(flags[flags.index("-trace") + 1]).resolve() == Path(path).resolve():
        raise UserError(f"-trace {path}: another file than -json's (the report would overwrite the trace)")
    check_writable(path, "-json", console)
    return flags[:at] + flags[at + 2:], path


def _write_report(ctx, run: dict, path: str) -> None:
    if not run.get("report"):
        ctx.console.warn(f"-json {path}: not written: the run ended without a report ({run['status']})")
        return
    Path(path).write_text(json.dumps(run["report"], indent=2) + "\n")
    ctx.console.note(f"its report: {path}")


def _show_output(run: dict) -> None:
    """The system's own lines (-v, -vv), as the store keeps them."""
    text = run.get("stdout_tail") or ""
    if run["status"] == "ok" and len(text) >= KEPT_OUTPUT_CHARS:
        print(f"the system's output, its last {KEPT_OUTPUT_CHARS} characters (the store keeps no more; "
              f"{run['argv'][0] if run.get('argv') else 'the binary'} run directly prints all of it):")
    else:
        print("the system's output:")
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")


def _launch_options(args) -> LaunchOptions:
    cluster = cluster_from(args.hosts, allocation_by_default=args.launcher == "srun")
    nodes = simulated_nodes(args, 1)
    simulation = Simulation(find(args.simulate), nodes) if args.simulate else None
    return LaunchOptions(args.ranks, args.threads_per_rank, args.launcher, cluster=cluster, simulation=simulation)


def system_help(system, args) -> int:
    """The system's own help, as it prints it: a question, not a measurement, so nothing is stored."""
    command = launch.command(system, list(args.system_flags), _launch_options(args))
    sys.stdout.flush()
    return subprocess.run(command.argv, env=command.env, stdin=subprocess.DEVNULL, timeout=args.timeout).returncode


def show(ctx, run: dict, name: str) -> None:
    """The run's table; under -q its figures are raw numbers (seconds, FLOP/s), as in the TSV of
    every other table (docs/harness.md)."""
    figures = units.Figures(ctx.console.quiet)
    seconds, rate = figures.seconds, figures.rate
    rows = [["system", run["system"]], ["status", run["status"] + (f": {run['reason']}" if run["reason"] else "")]]
    if run["status"] == "ok":
        kernel = run.get("kernel")
        rows += [["graph", f"{run.get('pattern')}, {_shape(run)}, kernel {kernel} -iter {run.get('iter')}"],
                 ["tasks / dependencies", f"{run.get('tasks')} / {run.get('dependencies')}"],
                 ["elapsed", seconds(run.get("elapsed_seconds"))],
                 ["FLOP/s", rate(run.get("flops_per_second"), "FLOP/s")],
                 ["B/s", rate(run.get("bytes_per_second"), "B/s")],
                 _cores_row(run),
                 ["task granularity", seconds(run.get("granularity_seconds"))]]
        if kernel in KERNELS:
            peak = load_peaks(ctx.store, kernel, run["machine_id"]).peak_for(run["system"], run.get("cores"))
            value = throughput(run, kernel)
            if peak and value is not None:
                rows.append(["efficiency", f"{units.percent(value / peak)} of the stored peak "
                                           f"{units.rate(peak, unit(kernel))}"])
        hosts = hosts_of(run)
        if hosts is not None and len(hosts) > 1:
            rows.append([f"{len(hosts)} hosts (processes / tasks)", per_host(hosts)])
        parts = breakdown_of(run)
        if parts is not None:
            rows.append(["breakdown (ns per task)", ", ".join(f"{p} {parts[p]:.1f}" for p in BREAKDOWN_PARTS)])
    rows.append(["stored", f"{ctx.store.path} campaign {name}, run id {run['id']}"])
    ctx.console.table(f"taskbench run {run['system']}", ["", "value"], rows)


def _shape(run: dict) -> str:
    """"10 steps x 4 wide"; a figure an external command neither was given nor reported is its own
    default, which the harness cannot know."""
    steps = f"{run['steps']} steps" if run.get("steps") is not None else "its default steps"
    width = f"{run['width']} wide" if run.get("width") is not None else "its default width (no -width given)"
    return f"{steps} x {width}"


def _cores_row(run: dict) -> list[str]:
    if run.get("launcher") == "external":  # no report: the cores are the ones --external declared
        return ["cores", f"{run.get('cores')} (as --external declared)"]
    threads = run.get("threads_per_rank")
    layout = f"{run.get('ranks')} x {threads}" if threads is not None else units.count(run.get("ranks") or 1, "rank")
    return ["cores (ranks x threads)", f"{run.get('cores')} ({layout})"]
