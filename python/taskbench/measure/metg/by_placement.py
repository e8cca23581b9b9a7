"""A system's METG where the CPUs' placement changed during its campaign (measure/placement.py).

The placement most of the system's runs were made under is the main one: its runs' METG is the
campaign's, where they cross the threshold with at least MIN_REPS repetitions at each of the
two sizes it is read between. Another placement's runs count only where they reach that
crossing, MIN_REPS repetitions at each of those two sizes: then they give a METG of their own
where theirs is read as firmly, and the interval spans both (the next campaign may see either
placement), or, where they fell on one side of the threshold there, their METG differs by more
than the sizes tell and the figure is marked. Anything else, a placement that held only briefly
or while the sweep ran sizes far from the crossing (a few large runs slowed by whatever moved
the CPUs read as a METG of tens of microseconds), is set apart and counted: never a figure,
never a bound.
"""

from __future__ import annotations

from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint, PlacementMetg
from taskbench.measure.metg.reliability import sizes_text

MIN_REPS = 2  # repetitions of a placement at each size its METG is read between


def _reps_at(points: dict[int, list[CurvePoint]], size: int) -> int:
    return sum(any(p.iter == size and p.ok for p in curve) for curve in points.values())


def _runs_of(reps: dict[int, list[CurvePoint]], keep) -> dict[int, list[CurvePoint]]:
    chosen = {rep: [p for p in points if keep(p.placement)] for rep, points in reps.items()}
    return {rep: points for rep, points in chosen.items() if points}


def _count(reps: dict[int, list[CurvePoint]]) -> int:
    return sum(len(points) for points in reps.values())


def _firm(summary, reps) -> bool:
    """A METG read between two sizes each run in MIN_REPS repetitions or more."""
    return summary.status == "found" and all(_reps_at(reps, size) >= MIN_REPS for size in summary.deciding)


def per_placement(curve, params, ranges: dict[str, tuple[float, float]], seed: int) -> None:
    """curve.summary re-read as the module docstring says, each placement's figure or what its
    runs were in summary.placements."""
    runs = {label: _runs_of(curve.reps, lambda at, label=label: at == label) for label in ranges}
    read = {label: estimate(reps, params.threshold, params.metg_method, seed, full_reps=params.reps)
            for label, reps in runs.items()}
    main = max(ranges, key=lambda label: _count(runs[label]))
    s = curve.summary
    if not _firm(read[main], runs[main]):
        s.placements = [PlacementMetg(label, ns, None, None, None, _count(runs[label]), note="no METG of its own")
                        for label, ns in ranges.items()]
        return
    deciding = read[main].deciding
    placements, counted = [], []
    for label, ns in ranges.items():
        own, reps = read[label], runs[label]
        reached = all(_reps_at(reps, size) >= MIN_REPS for size in deciding)
        if label == main or (reached and _firm(own, reps)):
            placements.append(PlacementMetg(label, ns, own.seconds, own.low, own.high, _count(reps)))
            counted.append(label)
        elif reached and own.status != "found":
            side = "above" if own.status == "unbracketed" else "below"
            placements.append(PlacementMetg(label, ns, None, None, None, _count(reps), differs=True, note=(
                f"its runs at {sizes_text(deciding)} lie {side} {params.threshold:.0%} efficiency: its METG is "
                f"{'smaller' if side == 'above' else 'larger'}, by more than this campaign's sizes tell")))
        else:
            placements.append(PlacementMetg(label, ns, None, None, None, _count(reps), note=(
                f"too few near the crossing ({sizes_text(deciding)}, {MIN_REPS} repetitions each): set apart")))
    s = curve.summary = estimate(_runs_of(curve.reps, lambda at: at in counted), params.threshold,
                                 params.metg_method, seed, full_reps=params.reps)
    s.placements = [p for p in placements if p.runs]  # one its probes saw under no run says nothing
    figures = [p for p in placements if p.seconds is not None]
    if len(figures) > 1 and s.seconds is not None:
        # The METG is either placement's, whichever the next campaign sees: the interval spans
        # both (and the METG itself: without an interval of its own, one repetition, the
        # placements' figures could all lie above it).
        bounds = [b for p in figures for b in (p.low, p.high, p.seconds) if b is not None]
        bounds += [b for b in (s.low, s.high, s.seconds) if b is not None]
        s.low, s.high = min(bounds), max(bounds)
