"""Efficiency and METG (docs/spec.md §6, the Task Bench paper §IV). Pure functions, no I/O.

Efficiency of a run = its throughput / the machine's peak for that kernel and core count.
METG(x) = the smallest task granularity whose efficiency is still >= x. The harness reads it
from every run at once (measure/metg/fit.py, measure/metg/estimate.py); here are the pieces: a
repetition's own METG (metg_of_curve: a crossing between two consecutive sweep points, one >= x
and the next < x, interpolated linearly in efficiency against log(granularity)), which the sweep
steers by and the median method reports, the SC20 paper's reduction, and the summary every
table, figure and store record reads.
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
    disturbed: bool = False  # every try shared the machine with other processes (measure/noise.py)
    placement: str | None = None  # the CPUs' placement it ran under, where that changed (placement.tag)

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
    falls = [(hi, lo) for hi, lo in zip(curve, curve[1:]) if hi.efficiency >= threshold > lo.efficiency]
    candidates = [(p.granularity, (p.iter,)) for p in curve if p.efficiency >= threshold]
    candidates += [(log_interpolate(hi, lo, threshold), (hi.iter, lo.iter)) for hi, lo in falls]
    crossings = sum((a.efficiency >= threshold) != (b.efficiency >= threshold) for a, b in zip(curve, curve[1:]))
    value, deciding = min(candidates)
    if not falls:
        return MetgValue(value, "unbracketed", f"efficiency never fell below {threshold:.0%}: METG <= this value",
                         disturbed, deciding, crossings)
    return MetgValue(value, "found", disturbed=disturbed, deciding=deciding, crossings=crossings)


UNRELIABLE_MARK = units.UNRELIABLE_MARK


@dataclass(frozen=True)
class PlacementMetg:
    """The METG of the runs made under one placement of the CPUs (measure/placement.py)."""
    label: str  # "near cores" | "far cores"
    one_way_ns: tuple[float, float]  # the probes' range under it
    seconds: float | None
    low: float | None
    high: float | None
    runs: int  # counted runs tagged with it
    note: str = ""  # why it has no METG of its own (measure/metg/by_placement.py)
    differs: bool = False  # its runs at the sizes the METG is read between say its METG is another

    @property
    def text(self) -> str:
        where = f"{self.label} ({self.one_way_ns[0]:.0f}-{self.one_way_ns[1]:.0f} ns one way)"
        if self.seconds:
            return f"{where}: {units.seconds_interval(self.seconds, self.low, self.high)}"
        return f"{where}: {units.count(self.runs, 'run')}, {self.note or 'no METG'}"


@dataclass
class MetgSummary:
    values: list[MetgValue]  # each repetition's own METG: the median method's, and the sweep's guide
    method: str = "fit"
    seconds: float | None = None  # the METG (measure/metg/estimate.py)
    low: float | None = None  # its 95% interval; None with fewer than two repetitions
    high: float | None = None
    status: str = "none"  # "found" | "unbracketed" (an upper bound) | "none"
    deciding: tuple[int, ...] = ()  # the -iter of the sizes it was read from
    found: int = 0  # repetitions with a METG of their own
    warnings: list[str] = field(default_factory=list)
    unreliable: list[str] = field(default_factory=list)  # why this is not a result; empty: it is
    placements: list[PlacementMetg] = field(default_factory=list)  # where the CPUs' placement changed
    # Where low/high are the interval a rerun honours (measure/metg/rerun.py): this campaign's own
    # interval, and the machine's drift between campaigns they were widened by.
    within_low: float | None = None
    within_high: float | None = None
    drift: object = None  # rerun.Drift

    @property
    def reliable(self) -> bool:
        return not self.unreliable

    @property
    def bound(self) -> bool:
        """Still efficient at the smallest size swept: the METG is an upper bound ("or less")."""
        return self.status == "unbracketed"

    @property
    def campaign_interval(self) -> tuple[float | None, float | None]:
        """This campaign's own 95% interval, the one to weigh two systems of this campaign with:
        their runs were interleaved in the same minutes, so the machine's drift between
        campaigns, which the rerun interval (low, high) adds, moves both alike."""
        return (self.within_low, self.within_high) if self.drift is not None else (self.low, self.high)

    @property
    def half_width(self) -> float | None:
        """Half the interval's width over the METG: 0.05 reads "within 5%"."""
        if self.seconds is None or self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2 / self.seconds

    @property
    def text(self) -> str:
        """"352 ns (341-366)", or "352 ns" without an interval, or "no METG" (units.metg, the one
        formatter of every command's METG)."""
        return units.metg(self.seconds, self.low, self.high, bound=self.bound)

    @property
    def half_width_text(self) -> str:
        """"±4.6%", "unbounded" or "—" (units.half_width)."""
        return units.half_width(self.seconds, self.low, self.high)

    @property
    def mark(self) -> str:
        """What follows an unreliable figure wherever it is shown: " (unreliable)", else ""."""
        return UNRELIABLE_MARK if self.unreliable else ""

    def refusal(self, system: str, where: str, conclusion: str) -> str:
        return refusal(system, where, conclusion, "; ".join(self.unreliable))

    @property
    def text_status(self) -> str:
        if self.seconds is None:
            reasons = {v.note for v in self.values if v.note}
            return "no METG" + (f" ({'; '.join(sorted(reasons))})" if reasons else "")
        return "ok"


def refusal(system: str, where: str, conclusion: str, why: str) -> str:
    """The one line in place of a conclusion not drawn from an unreliable METG (`why` it is)."""
    return f"{system}: no {conclusion}: its METG {where} is unreliable ({why}); --allow-unreliable draws it anyway"


def median_metg(values: list[MetgValue]) -> float | None:
    """The median of the repetitions' own METGs (the median method's figure), None if none has one."""
    found = [v.seconds for v in values if v.seconds is not None]
    return statistics.median(found) if found else None


def repetition_spread(values: list[MetgValue]) -> tuple[int, float | None]:
    """(repetitions with a METG, (max - min) / median of theirs): how far the repetitions' own
    METGs disagree (None with fewer than two)."""
    found = [v.seconds for v in values if v.seconds is not None]
    return len(found), relative_spread(found)


def relative_spread(values: list[float]) -> float | None:
    """(max - min) / median, the disagreement between repetitions of one point."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if mid > 0 else None


# How a summary's METG is read from the runs (measure/metg/estimate.py says what each does). A campaign
# stored with "harness", the median method's name before the fit, reads as "median".
METG_METHODS = ("fit", "median", "paper")
LEGACY_METHODS = {"harness": "median"}


def paper_metg(reps: dict[int, list[CurvePoint]], threshold: float) -> float | None:
    """METG as the SC20 paper reduced its data (taskbench.reference.paper_metg): per size the
    mean elapsed time of the repetitions (granularity grows with it: their mean; efficiency
    falls with it: the harmonic mean of theirs), then the one curve's METG."""
    from taskbench.reference.paper_metg import Point, metg  # the paper's reduction, kept with its data
    curve = [Point((it,), len(same), statistics.mean(p.granularity for p in same),
                   0.0 if any(p.efficiency <= 0 for p in same) else len(same) / sum(1 / p.efficiency for p in same))
             for it, same in sorted(by_size(reps).items(), reverse=True)]
    return metg(curve, threshold)


def by_size(reps: dict[int, list[CurvePoint]]) -> dict[int, list[CurvePoint]]:
    """{-iter: the successful points of every repetition at that size}."""
    sizes: dict[int, list[CurvePoint]] = {}
    for points in reps.values():
        for p in points:
            if p.ok:
                sizes.setdefault(p.iter, []).append(p)
    return sizes
