"""How `taskbench peak` measures: at a problem size far above any runtime overhead (trivial
pattern, no dependencies), best of N, the registry's one-core probe (`peak_probe = "one_core"`)
for one core, the first available all-cores default system with C threads for C cores, measured
with C cores busy at once, never scaled from fewer (table.py says why); with --gpu, the
registry's GPU probe (`peak_probe = "gpu"`) running W independent one-warp tasks at once, each
long enough that launches vanish; with --hosts, the across-hosts probe on every core."""

from __future__ import annotations

from taskbench import provenance, units
from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch import LaunchOptions
from taskbench.measure.kernels import kernel_info
from taskbench.measure.sweep import campaign
from taskbench.registry import gpu

CPU_STEPS, CPU_ITER_FACTOR = 100, 4  # x the METG sweep's start -iter
# The GPU's peak: the GPU probe (a CUDA system), W one-warp tasks per step. compute_bound -iter
# 1<<22 (64x the sweep's start) is 128 x 2^22 = 5.4e8 FLOPs a task; one warp's two dependent FMA
# chains per lane run at ~30 GFLOP/s on an H100 (a DFMA's latency, not the SM's FP64 rate, bounds
# them), so a task is ~18 ms and 20 steps ~0.35 s: a launch's few µs, overlapped with the running
# step, vanish.
GPU_WIDTHS, GPU_STEPS, GPU_ITER_FACTOR = "16,64", 20, 64


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


def gpu_peak_points(registry, widths_text: str | None) -> list[tuple[object, int]]:
    """(the GPU probe, W) for each width: a clear error, before anything is stored, where no GPU
    can be used."""
    probe = registry.peak_probe("gpu")
    counts = widths(widths_text or GPU_WIDTHS)
    reason = gpu.cuda_device_problem()
    if reason:
        raise UserError(f"peak --gpu: {reason}", EXIT_ENVIRONMENT)
    if probe is None:
        raise UserError('peak --gpu: no registry entry has peak_probe = "gpu"', EXIT_ENVIRONMENT)
    return [(registry.require_available(probe.name), w) for w in counts]


def hosts_peak_points(registry, cluster) -> list[tuple[object, int]]:
    """(the across-hosts probe, every core of the hosts): METG sweeps across these hosts are
    measured against it, never against this machine's peak."""
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


def run_peak(ctx, points: list[tuple[object, int]], kernel: str, steps: int, iterations: int, reps: int,
             timeout: float, cluster, gpu: bool) -> tuple[str, dict, campaign.ExecutionStats]:
    """The peak campaign, stored as it runs: `reps` rounds of every point, interleaved as the
    sweeps are; (its name, the runs of each (system name, cores), its stats)."""
    store = ctx.store
    name = campaign.new_name(store, "peak", "gpu" if gpu else "", kernel)
    store.claim(name)  # while it runs: `campaigns` tells a running campaign from an interrupted one
    campaign.create(store, name, "peak", {"kernel": kernel, "systems": sorted({s.name for s, _ in points}),
                                          "cores": [c for _, c in points], "iter": iterations, "steps": steps,
                                          "reps": reps,
                                          **({"hosts": campaign.hosts_params(cluster)} if cluster else {})},
                    ctx.git_revision)
    stats = campaign.ExecutionStats()
    results = {(s.name, c): [] for s, c in points}
    with ctx.console.progress(f"peak {kernel}") as bar:
        bar.add(reps * len(points))
        for rep in range(reps):
            for system, cores in points:  # interleaved, like the sweeps
                flags = peak_flags(kernel, cores, steps, iterations)
                threads = cores if system.cores == "all" and system.threads_flag else None
                options = LaunchOptions(cluster=cluster) if cluster else LaunchOptions(threads_per_rank=threads)
                run = campaign.execute_one(store, system, flags, campaign=name,
                                           key=f"{system.name}/cores={cores}/rep={rep}", rep=rep,
                                           options=options, timeout=timeout,
                                           git_revision=ctx.git_revision, stats=stats)
                results[(system.name, cores)].append(run)
                bar.advance(f"{system.name} x {cores}")
    store.finish_campaign(name)
    return name, results, stats
