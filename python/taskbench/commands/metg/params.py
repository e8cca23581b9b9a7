"""The parameters of the sweep `taskbench metg` asks for (SweepParams), from its options: the
systems, the Task Bench flags the sweep owns and those it refuses in --flags, the defaults of a
deterministic (simulated) sweep."""

from __future__ import annotations

import shlex

from taskbench import provenance
from taskbench.commands.options import cluster_from
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError
from taskbench.hosts.facts import described
from taskbench.measure.kernels import kernel_info
from taskbench.measure.sweep.bisect import PLAN as BISECT
from taskbench.measure.sweep.params import SweepParams
from taskbench.registry.external import add_externals, externals_from_specs

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


def _systems(args, ctx, names: list[str] | None) -> tuple[list[str], dict]:
    """The systems to sweep, the --external commands among them (added to the registry first), and
    those commands."""
    registry = ctx.registry
    externals = externals_from_specs(args.external)
    add_externals(registry, externals)
    named = [*(args.systems if names is None else names), *externals]
    if args.default:
        chosen = []
        for s in registry.defaults():
            if s.available:
                chosen.append(s.name)
            else:  # never silently skipped
                ctx.console.warn(f"default system {s.name} skipped: {s.reason}")
        if not chosen:
            raise UserError("no default system is available (see `taskbench systems`)", EXIT_ENVIRONMENT)
        return chosen + [n for n in named if n not in chosen], externals
    if not named:
        raise UserError("name at least one system (or --default, or --external); `taskbench systems` lists them")
    for name in named:
        registry.require_available(name)
    return list(dict.fromkeys(named)), externals


def sweep_params(args, ctx, deterministic: bool = False, names: list[str] | None = None) -> SweepParams:
    """The sweep the options ask for. deterministic (--simulate): a repetition, a try, no added
    repetitions and a bisection unless told otherwise; its simulation and width are each node
    count's (simulated.py). names: the systems, where not the options' own."""
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
    systems, externals = _systems(args, ctx, names)
    cluster = cluster_from(args.hosts, allocation_by_default=args.launcher == "srun")
    cores = cluster.cores if cluster is not None else provenance.available_cores()
    plan = args.plan or (BISECT if deterministic else "adaptive")
    if plan == BISECT and not deterministic:
        raise UserError("--plan bisect: only for deterministic runs (--simulate): a measured run's noise would "
                        "send a bisection the wrong way at the first disturbed run", EXIT_USAGE)
    return SweepParams(
        systems=systems, externals=externals, pattern=args.pattern,
        kernel=args.kernel, steps=args.steps, width=args.width or cores, radix=args.radix,
        threshold=args.threshold / 100,
        reps=args.reps or (1 if deterministic else 3), tries=args.tries or (1 if deterministic else 3),
        start_iter=args.start_iter or info.start_iter,
        refine_points=args.refine, scratch=args.scratch or info.scratch or None, extra_flags=extra,
        timeout=args.timeout, ranks=args.ranks, threads_per_rank=args.threads_per_rank, launcher=args.launcher,
        max_interval=args.max_interval / 100,
        target_interval=(args.target_interval if args.target_interval is not None else 0.0 if deterministic else 5.0)
        / 100,
        interval_budget=args.interval_budget, cluster=cluster, host_facts=described(cluster) if cluster else (),
        metg_method=args.metg_method, plan=plan)
