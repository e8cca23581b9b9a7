"""`taskbench peak`: measure and store this machine's peak FLOP/s or B/s for a kernel.

Runs at a problem size far above any runtime overhead (trivial pattern, no dependencies), best
of N, at every core count asked for (`--cores`, default 1 and all): the registry's one-core probe
(`peak_probe = "one_core"`) for one core, the first available all-cores default system with C
threads for C cores. The peak at C cores is
measured with C cores busy at once, never scaled from fewer (measure/peak.py says why). METG
efficiencies are computed against these stored runs and the campaign's own best at C cores.

`--gpu`: the GPU's peak at W task slots for each W of `--widths` (docs/gpu.md): the registry's GPU
probe (`peak_probe = "gpu"`) running W independent one-warp tasks at once, each long enough that
launches vanish.
"""

from __future__ import annotations

import statistics

from taskbench import provenance, units
from taskbench.commands.options import cluster_from, counted_kernel, positive_float, positive_int
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK, EXIT_RUNS_FAILED, EXIT_USAGE, UserError
from taskbench.launch import LaunchOptions
from taskbench.measure.noise import disturbed
from taskbench.measure.sweep import campaign
from taskbench.measure.kernels import KERNELS, kernel_info, throughput, unit
from taskbench.registry import gpu

CPU_STEPS, CPU_ITER_FACTOR = 100, 4  # x the METG sweep's start -iter
# The GPU's peak: the GPU probe (a CUDA system), W one-warp tasks per step. compute_bound -iter
# 1<<22 (64x the sweep's start) is 128 x 2^22 = 5.4e8 FLOPs a task; one warp's two dependent FMA
# chains per lane run at ~30 GFLOP/s on an H100 (a DFMA's latency, not the SM's FP64 rate, bounds
# them), so a task is ~18 ms and 20 steps ~0.35 s: a launch's few µs, overlapped with the running
# step, vanish.
GPU_WIDTHS, GPU_STEPS, GPU_ITER_FACTOR = "16,64", 20, 64


def add_parser(subparsers, common):
    p = subparsers.add_parser("peak", parents=[common], help="measure and store the machine's peak for a kernel")
    p.add_argument("--kernel", default="compute_bound", type=counted_kernel, metavar="KERNEL",
                   help=f"the kernel whose peak is measured: {', '.join(KERNELS)} (compute_bound)")
    p.add_argument("--systems", help="comma-separated systems (default: the registry's one-core probe for 1 core, "
                   "an all-cores default system for more)")
    p.add_argument("--cores", help="comma-separated core counts to measure (default: 1 and every available core)")
    p.add_argument("--gpu", action="store_true",
                   help="the GPU's peak at each of --widths task slots (the registry's GPU probe; docs/gpu.md)")
    p.add_argument("--widths", help=f"with --gpu: comma-separated widths = task slots, e.g. the GPU campaigns' "
                   f"widths (default {GPU_WIDTHS})")
    p.add_argument("--reps", type=positive_int, default=5, help="runs per system; the best counts (5)")
    p.add_argument("--iter", type=positive_int, help=f"kernel iterations (default: {CPU_ITER_FACTOR}x the METG sweep's "
                   f"start; --gpu {GPU_ITER_FACTOR}x)")
    p.add_argument("--steps", type=positive_int, help=f"timesteps (default {CPU_STEPS}; --gpu {GPU_STEPS})")
    p.add_argument("--timeout", type=positive_float, default=300.0,
                   help="seconds before one run is killed (300)")
    p.add_argument("--hosts", metavar="FILE", help="the peak of a cluster description's hosts, every core of "
                   "each busy at once (the registry's across-hosts probe, one rank per core; docs/clusters.md)")
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


def peak_points(registry, names: str | None, counts: list[int]) -> list[tuple[object, int]]:
    """(system, cores) pairs: every count on the systems that can run it."""
    if names:
        systems = [registry.require_available(n.strip()) for n in names.split(",") if n.strip()]
        on_gpu = [s.name for s in systems if s.processor == "gpu"]
        if on_gpu:
            raise UserError(f"--systems {names}: {', '.join(on_gpu)} run on the GPU, whose peak is "
                            "`taskbench peak --gpu --widths ...`")
        points = [(s, c) for c in counts for s in systems if s.cores in ("all", c)]
        if not points:
            raise UserError(f"--systems {names} runs none of --cores {','.join(map(str, counts))} "
                            "(a system with a fixed core count runs only that)")
        return points
    one_core = registry.peak_probe("one_core")
    all_cores = sorted((s for s in registry
                        if s.available and s.cores == "all" and s.launcher in ("local", "parsl_pools")),
                       key=lambda s: (not s.default, s.name))
    points = []
    for c in counts:
        if c == 1 and one_core is not None and one_core.available:
            points.append((one_core, 1))
        elif all_cores:
            points.append((all_cores[0], c))
        else:
            raise UserError(f"no system available to measure the peak with {units.count(c, 'core')} "
                            "(see `taskbench systems`)", EXIT_ENVIRONMENT)
    return points


def widths(text: str) -> list[int]:
    try:
        counts = sorted({int(w) for w in text.split(",") if w.strip()})
    except ValueError:
        counts = []
    if not counts or counts[0] < 1:
        raise UserError(f"--widths {text}: expected comma-separated positive widths, e.g. {GPU_WIDTHS}")
    return counts


def gpu_peak_points(registry, args) -> list[tuple[object, int]]:
    """(the GPU probe, W) for each width: a clear error, before anything is stored, where no GPU
    can be used."""
    probe = registry.peak_probe("gpu")
    for flag, value in (("--cores", args.cores), ("--systems", args.systems)):
        if value:
            runs = probe.name if probe is not None else "the registry's GPU probe"
            raise UserError(f"{flag} is for a CPU peak: `taskbench peak --gpu` runs {runs} at each "
                            "of --widths task slots", EXIT_USAGE)
    counts = widths(args.widths or GPU_WIDTHS)
    reason = gpu.cuda_device_problem()
    if reason:
        raise UserError(f"peak --gpu: {reason}", EXIT_ENVIRONMENT)
    if probe is None:
        raise UserError('peak --gpu: no registry entry has peak_probe = "gpu"', EXIT_ENVIRONMENT)
    return [(registry.require_available(probe.name), w) for w in counts]


def hosts_peak_points(registry, args, cluster) -> list[tuple[object, int]]:
    """(the across-hosts probe, every core of the hosts): METG sweeps across these hosts are
    measured against it, never against this machine's peak."""
    for flag, value in (("--cores", args.cores), ("--systems", args.systems), ("--gpu", args.gpu)):
        if value:
            raise UserError(f"{flag} with --hosts: the peak across hosts is one count, every core of every "
                            "host busy at once", EXIT_USAGE)
    probe = registry.peak_probe("across_hosts")
    if probe is None:
        raise UserError('peak --hosts: no registry entry has peak_probe = "across_hosts"', EXIT_ENVIRONMENT)
    return [(registry.require_available(probe.name), cluster.cores)]


def peak_flags(kernel: str, width: int, steps: int, iterations: int) -> list[str]:
    """One peak run: independent tasks (no dependencies), `width` of them at once."""
    flags = ["-steps", str(steps), "-width", str(width), "-type", "trivial", "-kernel", kernel,
             "-iter", str(iterations)]
    scratch = kernel_info(kernel).scratch
    return flags + (["-scratch", str(scratch)] if scratch else [])


def main(args, ctx) -> int:
    cluster = cluster_from(args.hosts)
    steps, factor = CPU_STEPS, CPU_ITER_FACTOR
    if cluster is not None:
        points = hosts_peak_points(ctx.registry, args, cluster)
    elif args.gpu:
        points = gpu_peak_points(ctx.registry, args)
        steps, factor = GPU_STEPS, GPU_ITER_FACTOR
    elif args.widths:
        raise UserError("--widths is for --gpu (a CPU peak's counts are --cores)", EXIT_USAGE)
    else:
        points = peak_points(ctx.registry, args.systems, core_counts(args.cores))
    steps = args.steps if args.steps is not None else steps
    iterations = args.iter or kernel_info(args.kernel).start_iter * factor
    store = ctx.store
    name = campaign.new_name(store, "peak", "gpu" if args.gpu else "", args.kernel)
    store.claim(name)  # while it runs: `campaigns` tells a running campaign from an interrupted one
    campaign.create(store, name, "peak", {"kernel": args.kernel, "systems": sorted({s.name for s, _ in points}),
                                          "cores": [c for _, c in points], "iter": iterations, "steps": steps,
                                          "reps": args.reps,
                                          **({"hosts": campaign.hosts_params(cluster)} if cluster else {})},
                    ctx.git_revision)
    stats = campaign.ExecutionStats()
    results = {(s.name, c): [] for s, c in points}
    with ctx.console.progress(f"peak {args.kernel}") as bar:
        bar.add(args.reps * len(points))
        for rep in range(args.reps):
            for system, cores in points:  # interleaved, like the sweeps
                flags = peak_flags(args.kernel, cores, steps, iterations)
                threads = cores if system.cores == "all" and system.threads_flag else None
                options = LaunchOptions(cluster=cluster) if cluster else LaunchOptions(threads_per_rank=threads)
                run = campaign.execute_one(store, system, flags, campaign=name,
                                           key=f"{system.name}/cores={cores}/rep={rep}", rep=rep,
                                           options=options, timeout=args.timeout,
                                           git_revision=ctx.git_revision, stats=stats)
                results[(system.name, cores)].append(run)
                bar.advance(f"{system.name} x {cores}")
    store.finish_campaign(name)
    figures = units.Figures(ctx.console.quiet)
    rows, bests = [], {}
    for (system, cores), runs in results.items():
        ok = [r for r in runs if r["status"] == "ok"]
        quiet = [r for r in ok if not disturbed(r)]  # a disturbed run is never a peak (measure/peak.py)
        values = [throughput(r, args.kernel) for r in quiet]
        if not values:
            reasons = {r["reason"] for r in runs if r["status"] != "ok"}
            why = "failed: " + "; ".join(sorted(reasons)) if not ok else _disturbed_note(ok, len(runs))
            rows.append([system, cores, "—", "—", "—", why])
            if ok:
                ctx.console.warn(f"peak with {units.count(cores, 'core')}: {_disturbed_note(ok, len(runs))}, so none "
                                 "is a peak (efficiencies are not measured against it); run `taskbench peak` again "
                                 "on a quiet machine")
            continue
        best = max(values)
        core_count = quiet[0].get("cores") or 1
        bests[core_count] = best
        left_out = len(ok) - len(quiet)
        rows.append([system, core_count, figures.rate(best, unit(args.kernel)),
                     figures.rate(best / core_count, unit(args.kernel)),
                     figures.rate(statistics.median(values), unit(args.kernel)),
                     f"{len(ok)}/{len(runs)} ok" + (f", {left_out} disturbed (not counted)" if left_out else "")])
    _warn_if_fewer_cores_beat_more(ctx, bests, args.kernel)
    if cluster is not None:
        title, count, per = (f"peak {args.kernel} of the {units.count(len(cluster), 'host')} of {cluster.path}, "
                             f"all busy (campaign {name})", "cores", "best per core")
    elif args.gpu:  # the cores of a GPU run are its task slots (docs/gpu.md)
        title, count, per = f"GPU peak {args.kernel} (campaign {name})", "GPU slots", "best per slot"
    else:
        title, count, per = f"peak {args.kernel} on {provenance.machine()['cpu_model']} (campaign {name})", \
            "cores", "best per core"
    ctx.console.table(title, ["system", count, "best", per, "median", "runs"], rows)
    return EXIT_RUNS_FAILED if stats.failed else EXIT_OK


def _disturbed_note(ok: list[dict], total: int) -> str:
    load = max(r.get("background_load") or 0.0 for r in ok)
    return (f"{'every one' if len(ok) == total else f'{len(ok)} of {total}'} ran beside other processes "
            f"(up to {load:.2f} cores busy with them)")


def _warn_if_fewer_cores_beat_more(ctx, bests: dict[int, float], kernel: str) -> None:
    """C cores busy at once do at least what fewer do: a peak with more cores below one with fewer
    was slowed by something the runs' load readings missed."""
    counts = sorted(bests)
    for few, many in zip(counts, counts[1:]):
        if bests[many] < bests[few]:
            rate = unit(kernel)
            ctx.console.warn(f"the peak with {units.count(many, 'core')} ({units.rate(bests[many], rate)}) is below "
                             f"the peak with {units.count(few, 'core')} ({units.rate(bests[few], rate)}): something "
                             "slowed its runs; run `taskbench peak` again on a quiet machine")
