"""Repetitions added where they narrow a METG's interval: the last phase of a sweep (measure/sweep/adaptive.py).

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
from taskbench.measure.metg import rerun
from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint
from taskbench.measure.metg.reliability import sizes_text

MAX_ADDED = 60  # repetitions added per system, whatever the budget
# Repetitions (whole ones and added ones) before the target may end it: an interval from fewer
# covers the METG less often than it says (measure/metg/fit.py: 72% from 3, 92% from 5 and 6).
MIN_REPS = 6


def target(params, tau: float | None) -> float:
    """The half-width the added repetitions aim at: --target-interval, or, where this machine's
    drift between campaigns is measured (measure/metg/rerun.py: tau), half of what that drift alone
    gives a figure, if wider: past it more repetitions barely narrow the interval a rerun honours
    (at that width it is within 12% of what endless repetitions would make it)."""
    return max(params.target_interval, rerun.Z * tau / 2) if tau and params.target_interval > 0 \
        else params.target_interval


def _percent(fraction: float) -> str:
    """"5%" for a round target (the option's), "7.8%" for one from the drift."""
    return f"{fraction:.0%}" if abs(fraction * 100 - round(fraction * 100)) < 1e-9 else f"{fraction:.1%}"


def next_sizes(curves: dict[int, list[CurvePoint]], params, added: int, seed: int, spent: float,
               sweep: float, tau: float | None = None) -> tuple[list[int], str]:
    """(sizes of the next repetition, [] to stop; what stopped it, or "" while going on).
    curves: every repetition's counted points so far; seed: the interval's, as the campaign's
    analysis seeds it (the interval said here is then the table's, unless the peak rose since);
    spent: seconds the added repetitions' runs took; sweep: seconds the sweep's own runs took;
    tau: this machine's drift between campaigns for the system's configuration, where measured."""
    target_width = target(params, tau)
    if target_width <= 0:
        return [], ""
    summary = estimate(curves, params.threshold, "fit", seed=seed)
    if summary.status != "found":
        return [], ""
    done = (f"{units.count(added, 'repetition')} added at {sizes_text(summary.deciding)}" if added
            else "no repetition added")
    width = summary.half_width
    why = f", half of this machine's drift between campaigns" if target_width > params.target_interval else ""
    # What stopped it, in words: the figure is the campaign's analysis's (line()), which may count
    # the runs otherwise than this running estimate (a placement set apart, a peak that rose).
    # MIN_REPS keeps an interval of the campaign's own from covering its METG less often than it
    # says; where the drift is measured, the figure's interval is mostly the drift's (measure/metg/rerun.py).
    if width is not None and width <= target_width and len(curves) >= (params.reps if tau else MIN_REPS):
        return [], f"{done}, the sweep's running estimate within the target ±{_percent(target_width)}{why}"
    if spent >= params.interval_budget * sweep:
        return [], (f"the budget for added repetitions ran out ({spent:.1f} s, {params.interval_budget:g} x "
                    f"the sweep's own {sweep:.1f} s; target ±{_percent(target_width)}{why}, {done})")
    if added >= MAX_ADDED:
        return [], f"the most repetitions were added ({done}; target ±{_percent(target_width)}{why})"
    return sorted(summary.deciding, reverse=True), ""


def line(summary, settled: str) -> str:
    """The console's line on how adding repetitions ended: the METG and half-width the campaign's
    table shows (units.metg, units.half_width), then what stopped it (next_sizes)."""
    width = summary.half_width_text
    width = width if width.startswith("±") else f"interval {width}"
    return f"METG {summary.text}{summary.mark}, {width}; {settled}"
