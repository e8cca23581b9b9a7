"""Efficiency and METG (docs/spec.md §6, the Task Bench paper §IV). Pure functions, no I/O.

Efficiency of a run = its throughput / the machine's peak for that kernel and core count.
METG(x) of one repetition's curve = the smallest task granularity whose efficiency is still
>= x, where a crossing between two consecutive sweep points (one >= x, the next < x) is
interpolated linearly in efficiency against log(granularity). Over repetitions we report the
median with its range; a curve that never reaches x has no METG.

A summary is unreliable, not a result, when its repetitions disagree (spread above max_spread,
or some reach x and others do not), or when none reaches x while some of its points were
disturbed by other processes in every try: noise could be all that the figure shows.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from taskbench import units


@dataclass(frozen=True)
class CurvePoint:
    iter: int
    granularity: float | None  # seconds; None when the run failed
    efficiency: float | None  # fraction of peak; None when the run failed
    disturbed: bool = False  # every try shared the machine with other processes (runner.disturbed)

    @property
    def ok(self) -> bool:
        return self.granularity is not None and self.efficiency is not None and self.granularity > 0


@dataclass(frozen=True)
class MetgValue:
    seconds: float | None
    status: str  # "found" | "unbracketed" (never fell below x: an upper bound) | "none"
    note: str = ""
    disturbed: int = 0  # points of the curve disturbed in every try
    deciding: tuple[int, ...] = ()  # the -iter of the sweep points the METG was read from
    crossings: int = 0  # times the curve crosses the threshold, in sweep order (1: a clean curve)


def efficiency(throughput: float | None, peak: float | None) -> float | None:
    if throughput is None or not peak or peak <= 0:
        return None
    return throughput / peak


def log_interpolate(hi: CurvePoint, lo: CurvePoint, threshold: float) -> float:
    """Granularity where the segment hi -> lo crosses `threshold`, linear in log(granularity).

    hi.efficiency >= threshold > lo.efficiency.
    """
    t = (hi.efficiency - threshold) / (hi.efficiency - lo.efficiency)
    log_g = math.log(hi.granularity) + t * (math.log(lo.granularity) - math.log(hi.granularity))
    return math.exp(log_g)


def metg_of_curve(points: list[CurvePoint], threshold: float) -> MetgValue:
    """METG of one repetition. `points` in any order; they are walked in sweep order.

    The sweep order (problem size decreasing) is what makes two points neighbours: granularity
    itself is not monotone in the problem size once overhead dominates (it can grow again).
    """
    curve = sorted((p for p in points if p.ok), key=lambda p: -p.iter)
    if not curve:
        return MetgValue(None, "none", "no successful run")
    disturbed = sum(p.disturbed for p in curve)
    best = max(p.efficiency for p in curve)
    if best < threshold:
        return MetgValue(None, "none", f"never reaches {threshold:.0%} (best {best:.0%})", disturbed)
    # (granularity, the points it was read from): every efficient point, and every crossing.
    candidates: list[tuple[float, tuple[int, ...]]] = [(p.granularity, (p.iter,)) for p in curve
                                                       if p.efficiency >= threshold]
    crossed = False
    for hi, lo in zip(curve, curve[1:]):
        if hi.efficiency >= threshold > lo.efficiency:
            crossed = True
            candidates.append((log_interpolate(hi, lo, threshold), (hi.iter, lo.iter)))
    crossings = sum((a.efficiency >= threshold) != (b.efficiency >= threshold) for a, b in zip(curve, curve[1:]))
    value, deciding = min(candidates)
    if not crossed:
        return MetgValue(value, "unbracketed", f"efficiency never fell below {threshold:.0%}: METG <= this value",
                         disturbed, deciding, crossings)
    return MetgValue(value, "found", disturbed=disturbed, deciding=deciding, crossings=crossings)


UNRELIABLE_MARK = " (unreliable)"


@dataclass
class MetgSummary:
    values: list[MetgValue]
    median: float | None = None
    low: float | None = None
    high: float | None = None
    spread: float | None = None  # (high - low) / median over repetitions with a METG
    found: int = 0
    warnings: list[str] = field(default_factory=list)
    unreliable: list[str] = field(default_factory=list)  # why this is not a result; empty: it is

    @property
    def reliable(self) -> bool:
        return not self.unreliable

    @property
    def mark(self) -> str:
        """What follows an unreliable figure wherever it is shown: " (unreliable)", else ""."""
        return UNRELIABLE_MARK if self.unreliable else ""

    def refusal(self, system: str, where: str, conclusion: str) -> str:
        """The one line in place of a conclusion not drawn from this unreliable METG."""
        return (f"{system}: no {conclusion}: its METG {where} is unreliable ({'; '.join(self.unreliable)}); "
                "--allow-unreliable draws it anyway")

    @property
    def text_status(self) -> str:
        if self.median is None:
            reasons = {v.note for v in self.values if v.note}
            return "no METG" + (f" ({'; '.join(sorted(reasons))})" if reasons else "")
        return "ok"


def summarize(values: list[MetgValue], max_spread: float | None = None) -> MetgSummary:
    summary = MetgSummary(values)
    found = [v.seconds for v in values if v.seconds is not None]
    summary.found = len(found)
    if not found:
        disturbed = [v for v in values if v.disturbed]
        if disturbed:
            summary.unreliable.append(
                f"no METG while other processes shared the machine "
                f"({units.count(sum(v.disturbed for v in disturbed), 'size')} disturbed in every try, in "
                f"{len(disturbed)} of {units.count(len(values), 'repetition')})")
        return summary
    summary.median = statistics.median(found)
    summary.low, summary.high = min(found), max(found)
    if len(found) > 1:  # one repetition has no spread to show (and none to judge)
        summary.spread = (summary.high - summary.low) / summary.median if summary.median > 0 else 0.0
    if len(found) < len(values):
        summary.warnings.append(f"only {len(found)} of {len(values)} repetitions reach the threshold")
        summary.unreliable.append(summary.warnings[-1])
    if any(v.status == "unbracketed" for v in values):
        summary.warnings.append("some repetitions never fell below the threshold (METG is an upper bound)")
    if max_spread is not None and len(found) > 1 and summary.spread > max_spread:
        summary.warnings.append(f"repetitions disagree: spread {summary.spread:.0%} > {max_spread:.0%}")
        summary.unreliable.append(summary.warnings[-1])
    return summary


def relative_spread(values: list[float]) -> float | None:
    """(max - min) / median, the disagreement between repetitions of one point."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if mid > 0 else None


METG_METHODS = ("harness", "paper")


def paper_metg(reps: dict[int, list[CurvePoint]], threshold: float) -> float | None:
    """METG as the SC20 paper reduced its data (taskbench.reference.paper_metg): per size the
    mean elapsed time of the repetitions (granularity grows with it: their mean; efficiency
    falls with it: the harmonic mean of theirs), then the one curve's METG."""
    from taskbench.reference.paper_metg import Point, metg  # the paper's reduction, kept with its data
    sizes: dict[int, list[CurvePoint]] = {}
    for points in reps.values():
        for p in points:
            if p.ok:
                sizes.setdefault(p.iter, []).append(p)
    curve = [Point((it,), len(same), statistics.mean(p.granularity for p in same),
                   0.0 if any(p.efficiency <= 0 for p in same) else len(same) / sum(1 / p.efficiency for p in same))
             for it, same in sorted(sizes.items(), reverse=True)]
    return metg(curve, threshold)
