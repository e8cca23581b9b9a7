"""`taskbench peak`: measure and store this machine's peak FLOP/s or B/s for a kernel at every
core count asked for (`--cores`, default 1 and all), or with `--gpu` the GPU's at each of
`--widths` task slots (docs/gpu.md), as measure/peak/runs.py says. METG efficiencies are
computed against these stored runs and the campaign's own best at C cores."""

from __future__ import annotations

import statistics

from taskbench import provenance, units
from taskbench.commands.options import cluster_from, counted_kernel, positive_float, positive_int
from taskbench.errors import EXIT_OK, EXIT_RUNS_FAILED, EXIT_USAGE, UserError
from taskbench.measure.kernels import KERNELS, kernel_info, throughput, unit
from taskbench.measure.noise import disturbed
from taskbench.measure.peak.runs import (CPU_ITER_FACTOR, CPU_STEPS, GPU_ITER_FACTOR, GPU_STEPS, GPU_WIDTHS,
                                         core_counts, gpu_peak_points, hosts_peak_points, peak_points, run_peak)


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


def main(args, ctx) -> int:
    cluster = cluster_from(args.hosts)
    steps, factor = CPU_STEPS, CPU_ITER_FACTOR
    if cluster is not None:
        _refuse(args, ("cores", "systems", "gpu"), "with --hosts: the peak across hosts is one count, every core "
                "of every host busy at once")
        points = hosts_peak_points(ctx.registry, cluster)
    elif args.gpu:
        probe = ctx.registry.peak_probe("gpu")
        runs = probe.name if probe is not None else "the registry's GPU probe"
        _refuse(args, ("cores", "systems"), f"is for a CPU peak: `taskbench peak --gpu` runs {runs} at each of "
                "--widths task slots")
        points = gpu_peak_points(ctx.registry, args.widths)
        steps, factor = GPU_STEPS, GPU_ITER_FACTOR
    else:
        _refuse(args, ("widths",), "is for --gpu (a CPU peak's counts are --cores)")
        points = peak_points(ctx.registry, args.systems, core_counts(args.cores))
    steps = args.steps if args.steps is not None else steps
    iterations = args.iter or kernel_info(args.kernel).start_iter * factor
    name, results, stats = run_peak(ctx, points, args.kernel, steps, iterations, args.reps, args.timeout,
                                    cluster, args.gpu)
    figures = units.Figures(ctx.console.quiet)
    rows, bests = [], {}
    for (system, cores), runs in results.items():
        ok = [r for r in runs if r["status"] == "ok"]
        quiet = [r for r in ok if not disturbed(r)]  # a disturbed run is never a peak (measure/peak/table.py)
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


def _refuse(args, options: tuple[str, ...], why: str) -> None:
    """An option the peak asked for takes no part in: one line, before anything runs."""
    for option in options:
        if getattr(args, option):
            raise UserError(f"--{option} {why}", EXIT_USAGE)


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
