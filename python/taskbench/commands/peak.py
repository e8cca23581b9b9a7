"""`taskbench peak`: measure and store this machine's peak FLOP/s or B/s for a kernel.

Runs at a problem size far above any runtime overhead (trivial pattern, no dependencies), best
of N, at every core count asked for (`--cores`, default 1 and all): serial for one core, the
first available all-cores default system with C threads for C cores. The peak at C cores is
measured with C cores busy at once, never scaled from fewer (measure/peak.py says why). METG
efficiencies are computed against these stored runs and the campaign's own best at C cores.
"""

from __future__ import annotations

import statistics

from taskbench import provenance, units
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK, EXIT_RUNS_FAILED, UserError
from taskbench.launch import LaunchOptions
from taskbench.measure import campaign
from taskbench.measure.kernels import KERNELS, kernel_info, throughput, unit


def add_parser(subparsers, common):
    p = subparsers.add_parser("peak", parents=[common], help="measure and store the machine's peak for a kernel")
    p.add_argument("--kernel", default="compute_bound", choices=list(KERNELS))
    p.add_argument("--systems", help="comma-separated systems (default: serial for 1 core, an all-cores default "
                   "system for more)")
    p.add_argument("--cores", help="comma-separated core counts to measure (default: 1 and every available core)")
    p.add_argument("--reps", type=int, default=5, help="runs per system; the best counts (5)")
    p.add_argument("--iter", type=int, help="kernel iterations (default: 4x the METG sweep's start)")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--timeout", type=float, default=300.0)
    return p


def core_counts(text: str | None) -> list[int]:
    available = provenance.available_cores()
    if not text:
        return sorted({1, available})
    try:
        counts = sorted({int(c) for c in text.split(",") if c.strip()})
    except ValueError:
        raise UserError(f"--cores {text}: expected comma-separated core counts, e.g. 1,8,16") from None
    if not counts or counts[0] < 1 or counts[-1] > available:
        raise UserError(f"--cores {text}: each count must be between 1 and the {available} available cores")
    return counts


def peak_plan(registry, names: str | None, counts: list[int]) -> list[tuple[object, int]]:
    """(system, cores) pairs: every count on the systems that can run it."""
    if names:
        systems = [registry.require_available(n.strip()) for n in names.split(",") if n.strip()]
        plan = [(s, c) for c in counts for s in systems if s.cores in ("all", c)]
        if not plan:
            raise UserError(f"--systems {names} runs none of --cores {','.join(map(str, counts))} "
                            "(a system with a fixed core count runs only that)")
        return plan
    serial = registry.systems.get("serial")
    all_cores = sorted((s for s in registry if s.available and s.cores == "all" and s.launcher == "local"),
                       key=lambda s: (not s.default, s.name))
    plan = []
    for c in counts:
        if c == 1 and serial is not None and serial.available:
            plan.append((serial, 1))
        elif all_cores:
            plan.append((all_cores[0], c))
        else:
            raise UserError(f"no system available to measure the peak with {units.count(c, 'core')} "
                            "(see `taskbench systems`)", EXIT_ENVIRONMENT)
    return plan


def main(args, ctx) -> int:
    info = kernel_info(args.kernel)
    plan = peak_plan(ctx.registry, args.systems, core_counts(args.cores))
    iterations = args.iter or info.start_iter * 4
    store = ctx.store
    name = campaign.new_name(store, "peak", args.kernel)
    campaign.create(store, name, "peak", {"kernel": args.kernel, "systems": sorted({s.name for s, _ in plan}),
                                          "cores": [c for _, c in plan], "iter": iterations, "steps": args.steps,
                                          "reps": args.reps}, ctx.git_revision)
    stats = campaign.ExecutionStats()
    results = {(s.name, c): [] for s, c in plan}
    with ctx.console.progress(f"peak {args.kernel}") as bar:
        bar.add(args.reps * len(plan))
        for rep in range(args.reps):
            for system, cores in plan:  # interleaved, like the sweeps
                flags = ["-steps", str(args.steps), "-width", str(cores), "-type", "trivial",
                         "-kernel", args.kernel, "-iter", str(iterations)]
                if info.scratch:
                    flags += ["-scratch", str(info.scratch)]
                threads = cores if system.cores == "all" and system.threads_flag else None
                run = campaign.execute_one(store, system, flags, campaign=name,
                                           key=f"{system.name}/cores={cores}/rep={rep}", rep=rep,
                                           options=LaunchOptions(threads_per_rank=threads), timeout=args.timeout,
                                           git_revision=ctx.git_revision, stats=stats)
                results[(system.name, cores)].append(run)
                bar.advance(f"{system.name} x {cores}")
    store.finish_campaign(name)
    rows = []
    for (system, cores), runs in results.items():
        ok = [r for r in runs if r["status"] == "ok"]
        values = [throughput(r, args.kernel) for r in ok]
        if not values:
            reasons = {r["reason"] for r in runs}
            rows.append([system, cores, "—", "—", "—", "failed: " + "; ".join(sorted(reasons))])
            continue
        best = max(values)
        core_count = ok[0].get("cores") or 1
        rows.append([system, core_count, units.rate(best, unit(args.kernel)),
                     units.rate(best / core_count, unit(args.kernel)),
                     units.rate(statistics.median(values), unit(args.kernel)),
                     f"{len(ok)}/{len(runs)} ok"])
    ctx.console.table(f"peak {args.kernel} on {provenance.machine()['cpu_model']} (campaign {name})",
                      ["system", "cores", "best", "best per core", "median", "runs"], rows)
    return EXIT_RUNS_FAILED if stats.failed else EXIT_OK
