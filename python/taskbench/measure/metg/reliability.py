"""Whether a METG is a result (docs/harness.md, "Noise"), from evidence about the runs it was
read from, never from the campaign as a whole. Pure functions.

A METG is unreliable when
  - its 95% interval is wider than the limit (half-width above `max_half_width`, 10% by default):
    the runs where it crosses the threshold disagree, whatever the reason;
  - the runs it was read from (each repetition's counted try at the two sizes around the
    crossing) ran beside other processes: their background CPU, summed signed over those runs
    (the 10 ms tick errors of short runs cancel in the sum) and divided by their wall time, is
    above DISTURBED_CORES (beyond the CPUs the runs left free: a one-core run on two CPUs shares
    nothing with one busy process) by more than twice its own standard error, measured from the
    scatter of those runs' readings. A set of runs too short for that to be told is not marked:
    a guess is no evidence;
  - there is no METG while some sizes were disturbed in every try (measure/noise.py).
A repetition retried clean counts its clean try, so a figure whose disturbed runs were run again
stays reliable. With one repetition there is no interval, and the figure says so.
"""

from __future__ import annotations

import math

import numpy as np

from taskbench import units
from taskbench.measure.noise import DISTURBED_CORES, spare_cores


def background_load(runs: list[dict]) -> float | None:
    """Cores' worth of CPU other processes used during these runs (wall-weighted). From the
    signed CPU seconds where stored: one run's tick error is as often negative as positive, so
    it cancels in the sum, where the per-run load (never below 0) would add it up."""
    measured = _readings(runs)
    total = sum(w for _, w in measured)
    return max(0.0, sum(seconds for seconds, _ in measured) / total) if total else None


def _readings(runs: list[dict]) -> list[tuple[float, float]]:
    """(background CPU seconds, wall seconds) of each run that measured them."""
    return [(r["background_cpu_seconds"] if r.get("background_cpu_seconds") is not None
             else r["background_load"] * r["wall_seconds"], r["wall_seconds"]) for r in runs
            if r.get("background_load") is not None and r.get("wall_seconds")]


def load_with_error(runs: list[dict]) -> tuple[float, float] | None:
    """(load, its standard error) over these runs: the load as background_load, the error from
    the scatter of the runs' own readings (tick error and real load alike); None under 2 runs."""
    measured = _readings(runs)
    if len(measured) < 2:
        return None
    seconds = np.array([s for s, _ in measured])
    wall = sum(w for _, w in measured)
    return float(seconds.sum() / wall), float(math.sqrt(len(seconds)) * seconds.std(ddof=1) / wall)


def busy_campaign(campaign_runs: list[dict]) -> float | None:
    """The campaign's background load when it ran under sustained load (above DISTURBED_CORES
    on average), else None: its title says so (a fact about the campaign, not a verdict on any
    figure)."""
    load = background_load(campaign_runs)
    return load if load is not None and load > DISTURBED_CORES else None


def busy_line(load: float) -> str:
    """What a campaign run under sustained background load says wherever it is shown."""
    return (f"BUSY MACHINE: other processes used {load:.2f} cores on average while this campaign ran; a METG "
            "is marked unreliable where the runs it was read from were disturbed")


def sizes_text(sizes) -> str:
    """"-iter 64", "-iter 64 and 128", "-iter 16, 64 and 128"."""
    sizes = [str(size) for size in sorted(sizes)]
    if len(sizes) > 2:
        sizes = [", ".join(sizes[:-1]), sizes[-1]]
    return "-iter " + " and ".join(sizes)


def judge(summary, deciding_runs: list[dict], threshold: float, max_half_width: float) -> list[str]:
    """Why a system's METG is not a result: [] when it is. deciding_runs: the counted runs (one
    per repetition) at the sizes it was read from (summary.deciding)."""
    reasons = []
    wide = summary.half_width is not None and summary.half_width > max_half_width
    if summary.placements and (wide or any(p.differs for p in summary.placements)):
        reasons.append(f"the CPUs' placement changed during the campaign, and its METG with it: "
                       f"{'; '.join(p.text for p in summary.placements)}")
    elif wide:
        effs = [r["efficiency"] for r in deciding_runs if r.get("efficiency") is not None]
        spread = (f": the efficiencies of its {units.count(len(effs), 'run')} at {sizes_text(summary.deciding)} "
                  f"range {min(effs):.0%}-{max(effs):.0%}") if effs else ""
        reasons.append(f"its 95% interval {units.seconds_interval(summary.seconds, summary.low, summary.high)} "
                       f"is {units.half_width(summary.seconds, summary.low, summary.high)}, wider than "
                       f"±{max_half_width:.0%}{spread}")
    load = load_with_error(deciding_runs)
    limit = DISTURBED_CORES + min((spare_cores(r) for r in deciding_runs), default=0)
    if load is not None and load[0] - 2 * load[1] > limit:
        left = limit - DISTURBED_CORES
        free = f" beyond the {left:g} {'core' if left == 1 else 'cores'} they left free" if left > 0 else ""
        reasons.append(f"the {units.count(len(deciding_runs), 'run')} it was read from "
                       f"({sizes_text(summary.deciding)}, each repetition's counted try) ran beside other "
                       f"processes: {load[0]:.2f} ± {load[1]:.2f} cores busy (/proc/stat over those runs; above "
                       f"{DISTURBED_CORES:g}{free})")
    return reasons


def judge_missing(values, disturbed_sizes: list[int]) -> list[str]:
    """Why the absence of a METG may be noise: some sizes disturbed in every try (their -iter)."""
    if not disturbed_sizes:
        return []
    reps = sum(1 for v in values if v.disturbed)
    return [f"no METG while other processes shared the machine ({sizes_text(sorted(set(disturbed_sizes)))}: "
            f"{units.count(len(disturbed_sizes), 'run')} disturbed in every try, in {reps} of "
            f"{units.count(len(values), 'repetition')})"]
