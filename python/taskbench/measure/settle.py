"""Repetitions added where they narrow a METG's interval: the last phase of a sweep (sweep_plan.py).

A METG is read where the fitted efficiency crosses the threshold, between two sizes; runs
anywhere else barely move it. So once a system's sweep is done, while its interval's half-width
is above the target (`--target-interval`, 5%), another repetition of just those two sizes runs,
interleaved with the other systems' (a drift of the machine then hits them all), and the METG is
fitted again. It stops at the target, when the time these repetitions took reaches
`--interval-budget` times the time of the sweep's own runs, after MAX_ADDED repetitions, or when
there is no crossing to narrow; the console says which (`state.settled`). Pure functions.
"""

from __future__ import annotations

from taskbench import units
from taskbench.measure.estimate import estimate
from taskbench.measure.metg import CurvePoint
from taskbench.measure.reliability import sizes_text

MAX_ADDED = 60  # repetitions added per system, whatever the budget
# Repetitions (whole ones and added ones) before the target may end it: an interval from fewer
# covers the METG less often than it says (measure/metg_fit.py: 72% from 3, 92% from 5 and 6).
MIN_REPS = 6


def next_sizes(curves: dict[int, list[CurvePoint]], params, added: int, seed: int, spent: float,
               sweep: float) -> tuple[list[int], str]:
    """(sizes of the next repetition, [] to stop; what stopped it, or "" while going on).
    curves: every repetition's counted points so far; seed: the interval's, as the campaign's
    analysis seeds it (the interval said here is then the table's, unless the peak rose since);
    spent: seconds the added repetitions' runs took; sweep: seconds the sweep's own runs took."""
    target = params.target_interval
    if target <= 0:
        return [], ""
    summary = estimate(curves, params.threshold, "fit", seed=seed)
    if summary.status != "found":
        return [], ""
    done = (f"{units.count(added, 'repetition')} added at {sizes_text(summary.deciding)}" if added
            else "no repetition added")
    width = summary.half_width
    if width is not None and width <= target and len(curves) >= MIN_REPS:
        return [], f"METG interval ±{width:.1%} (target ±{target:.0%}), {done}"
    now = f"interval ±{width:.1%}" if width is not None else "no interval yet"
    if spent >= params.interval_budget * sweep:
        return [], (f"METG {now} when the budget for added repetitions ran out ({spent:.1f} s, {params.interval_budget:g} x "
                    f"the sweep's own {sweep:.1f} s; target ±{target:.0%}, {done})")
    if added >= MAX_ADDED:
        return [], f"METG {now} after the most repetitions added ({done}; target ±{target:.0%})"
    return sorted(summary.deciding, reverse=True), ""
