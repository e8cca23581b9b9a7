"""METGs that pair: both sides of a `taskbench check` read off one fixed grid of sizes.

A sweep refines the sizes around each system's own crossing, so two systems' METGs are
interpolated between different pairs of sizes, and a repetition of one has no partner in the
other. Here a short pilot sweep finds each side's crossing; then both sides run the same sizes
(every size both sides' crossings could fall between), interleaved size by size, and repetition
k of each side yields a METG from the same sizes in the same minutes of the machine: a pair, as
the fixed grains' runs are (docs/regression-gate.md). Each repetition's METG is read from a
monotone fit of its grid points (measure/metg/fit.py): a noisy size near 50% is pooled with its
neighbour instead of leaving a curve with no single crossing. Pure functions.
"""

from __future__ import annotations

import math

from taskbench.measure.metg import fit as metg_fit
from taskbench.measure.metg.methods import CurvePoint, MetgValue

STEPS_PER_DOUBLING = 2  # the grid's sizes are 2^(j/2): a step of sqrt(2) in -iter
# Lattice steps kept below a side's lowest pilot crossing and above its highest. Background
# load only slows runs down, so a disturbed repetition crosses at a larger size than the pilot
# did: more room above.
STEPS_BELOW, STEPS_ABOVE = 1, 1


def bracket(values: list[MetgValue]) -> tuple[int, int] | None:
    """(smallest, largest) -iter between which the pilot's repetitions crossed the threshold, or
    None where none did."""
    sizes = [size for v in values if v.status == "found" for size in v.deciding]
    return (min(sizes), max(sizes)) if sizes else None


def grid(brackets: list[tuple[int, int]]) -> list[int]:
    """The sizes both sides run, in decreasing order: the lattice points around every bracket."""
    sizes = set()
    for low, high in brackets:
        first = math.floor(STEPS_PER_DOUBLING * math.log2(low)) - STEPS_BELOW
        last = math.ceil(STEPS_PER_DOUBLING * math.log2(high)) + STEPS_ABOVE
        sizes.update(max(1, round(2 ** (j / STEPS_PER_DOUBLING))) for j in range(first, last + 1))
    return sorted(sizes, reverse=True)


def curve_point(iterations: int, run: dict, efficiency: float | None, disturbed: bool) -> CurvePoint:
    ok = run.get("status") == "ok" and efficiency is not None
    return CurvePoint(iterations, run.get("granularity_seconds") if ok else None, efficiency if ok else None,
                      disturbed)


def clean(value: MetgValue) -> bool:
    """A repetition with one METG to read: its fitted curve crosses the threshold on the grid."""
    return value.status == "found" and value.crossings <= 1


def metg_of_repetition(curve: list[CurvePoint], threshold: float) -> MetgValue:
    """The METG of one repetition's grid points, from their monotone fit."""
    ok = [p for p in curve if p.ok]
    if not ok:
        return MetgValue(None, "none", "no successful run")
    found = metg_fit.fit(metg_fit.Points.of_curves({0: ok}), threshold)
    if found.status == "none":
        return MetgValue(None, "none", f"never reaches {threshold:.0%} (best {found.best:.0%})")
    deciding = tuple(size for size in (found.above, found.below) if size is not None)
    return MetgValue(found.seconds, found.status, deciding=deciding, crossings=int(found.status == "found"))


def metg_per_repetition(points: dict[int, list[CurvePoint]], threshold: float) -> dict[int, MetgValue]:
    """{repetition: its METG} from {repetition: its points on the grid}."""
    return {rep: metg_of_repetition(curve, threshold) for rep, curve in points.items()}


def pairs(baseline: dict[int, MetgValue], candidate: dict[int, MetgValue]) -> tuple[list[float], list[float]]:
    """The repetitions where both sides have a clean METG: (baseline's, candidate's), in order."""
    both = [rep for rep in sorted(candidate) if clean(candidate[rep]) and rep in baseline and clean(baseline[rep])]
    return [baseline[rep].seconds for rep in both], [candidate[rep].seconds for rep in both]
