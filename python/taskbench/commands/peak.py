"""`taskbench peak`: measure and store this machine's peak FLOP/s or B/s for a kernel.

Runs at a problem size far above any runtime overhead (trivial pattern, no dependencies), with
one core (serial) and with every core (the first available all-cores default system), best of N.
METG efficiencies are computed against these stored runs (and the best of the campaign).
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
    p.add_argument("--systems", help="comma-separated systems (default: serial and an all-cores default system)")
    p.add_argument("--reps", type=int, default=5, help="runs per system; the best counts (5)")
    p.add_argument("--iter", type=int, help="kernel iterations (default: 4x the METG sweep's start)")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--timeout", type=float, default=300.0)
    return p


def peak_systems(registry, names: str | None):
    if names:
        return [registry.require_available(n.strip()) for n in names.split(",") if n.strip()]
    chosen = []
    if "serial" in registry.systems and registry.systems["serial"].available:
        chosen.append(registry.systems["serial"])
    all_cores = [s for s in registry if s.available and s.cores == "all" and s.launcher == "local"]
    all_cores.sort(key=lambda s: (not s.default, s.name))
    if all_cores:
        chosen.append(all_cores[0])
    if not chosen:
        raise UserError("no system available to measure the peak with (see `taskbench systems`)",
                        EXIT_ENVIRONMENT)
    return chosen


def main(args, ctx) -> int:
    info = kernel_info(args.kernel)
    systems = peak_systems(ctx.registry, args.systems)
    iterations = args.iter or info.start_iter * 4
    cores = provenance.available_cores()
    store = ctx.store
    name = campaign.new_name(store, "peak", args.kernel)
    campaign.create(store, name, "peak", {"kernel": args.kernel, "systems": [s.name for s in systems],
                                          "iter": iterations, "steps": args.steps, "reps": args.reps},
                    ctx.git_revision)
    stats = campaign.ExecutionStats()
    results = {s.name: [] for s in systems}
    with ctx.console.progress(f"peak {args.kernel}") as bar:
        bar.add(args.reps * len(systems))
        for rep in range(args.reps):
            for system in systems:  # interleaved, like the sweeps
                width = system.cores if isinstance(system.cores, int) else cores
                flags = ["-steps", str(args.steps), "-width", str(width), "-type", "trivial",
                         "-kernel", args.kernel, "-iter", str(iterations)]
                if info.scratch:
                    flags += ["-scratch", str(info.scratch)]
                run = campaign.execute_one(store, system, flags, campaign=name, key=f"{system.name}/rep={rep}",
                                           rep=rep, options=LaunchOptions(), timeout=args.timeout,
                                           git_revision=ctx.git_revision, stats=stats)
                results[system.name].append(run)
                bar.advance(system.name)
    store.finish_campaign(name)
    rows = []
    for system in systems:
        ok = [r for r in results[system.name] if r["status"] == "ok"]
        values = [throughput(r, args.kernel) for r in ok]
        if not values:
            reasons = {r["reason"] for r in results[system.name]}
            rows.append([system.name, "—", "—", "—", "—", "failed: " + "; ".join(sorted(reasons))])
            continue
        best = max(values)
        core_count = ok[0].get("cores") or 1
        rows.append([system.name, core_count, units.rate(best, unit(args.kernel)),
                     units.rate(best / core_count, unit(args.kernel)),
                     units.rate(statistics.median(values), unit(args.kernel)),
                     f"{len(ok)}/{len(results[system.name])} ok"])
    ctx.console.table(f"peak {args.kernel} on {provenance.machine()['cpu_model']} (campaign {name})",
                      ["system", "cores", "best", "best per core", "median", "runs"], rows)
    return EXIT_RUNS_FAILED if stats.failed else EXIT_OK
