"""A `taskbench check`'s verdicts, and what makes them hold: every cell judged together (Holm's
correction: checking more systems must not find more regressions by chance), a cell whose
interval is only too wide measured more instead of being called inconclusive, and a change
believed only when a second measurement says it again. The tests and intervals are
check/regression.py's; the runs, check/sampling.py's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from taskbench.check import regression

MAX_SETS = 4  # of repetitions of one cell: the preset's, then as many more as its interval needs (extend)
MIN_CLEAN_SHARE = 0.75  # of a side's METG repetitions whose fitted curve must cross 50% on the grid


@dataclass
class Cell:
    system: str  # the candidate
    baseline: str  # its baseline's name in this run (or in the saved file)
    metric: str
    baseline_values: list[float] = field(default_factory=list)
    candidate_values: list[float] = field(default_factory=list)
    paired: bool = False  # repetition k of both sides ran one after the other (regression.compare)
    sets: int = 1  # of repetitions measured (extend)
    noise: str = ""
    # Where one side never reaches 50% efficiency and the other does: its METG is infinite, a
    # verdict no test is needed for: (verdict, why).
    categorical: tuple[str, str] | None = None
    comparison: regression.Comparison | None = None
    p_adjusted: float | None = None
    verdict: str = ""
    why: str = ""


# Fills a cell's values (the baseline's too where both sides run here: the bool) and its noise.
Measure = Callable[[Cell, bool], None]


def never_efficient(cell: Cell, never: dict[str, int], found: dict[str, int], reps: int) -> tuple[str, str] | None:
    """Regressed (improved) where most of the candidate's (baseline's) curves never reach 50% on
    the grid, sizes at which most of the other side's cross it: its METG lies beyond them."""
    enough = MIN_CLEAN_SHARE * reps
    if never[cell.system] >= enough and found[cell.baseline] >= enough:
        return regression.REGRESSED, (f"{never[cell.system]} of {reps} of its curves never reach 50% efficiency "
                                      "at the sizes where the baseline's cross it (METG beyond them)")
    if never[cell.baseline] >= enough and found[cell.system] >= enough:
        return regression.IMPROVED, (f"{never[cell.baseline]} of the baseline's {reps} curves never reach 50% "
                                     "efficiency at the sizes where the candidate's cross it")
    return None


def judge(cells: list[Cell], threshold: float) -> None:
    compared = [c for c in cells if c.baseline]
    for cell in compared:
        cell.comparison = regression.compare(cell.baseline_values, cell.candidate_values, cell.paired)
    adjusted = regression.holm([c.comparison.p for c in compared])
    for cell, p in zip(compared, adjusted):
        cell.p_adjusted = p
        cell.verdict, cell.why = cell.categorical or regression.verdict(cell.comparison, p, threshold, cell.noise)


def _again(cell: Cell, measure: Measure, stored: dict | None) -> Cell:
    """The cell's metric measured once more: both sides where the baseline runs here, else the
    candidate against the stored baseline's values."""
    again = Cell(cell.system, cell.baseline, cell.metric,
                 baseline_values=list(cell.baseline_values) if stored is not None else [])
    measure(again, stored is None)
    return again


def extend(cells: list[Cell], threshold: float, measure: Measure, stored: dict | None) -> None:
    """A cell inconclusive only because its interval is too wide (no noise, enough repetitions)
    gets more sets of repetitions, as many as its width says it needs (an interval narrows as
    1/sqrt(n)), and is judged on all of them together: a runtime whose runs differ by 10% from
    one to the next (native_dynamic's empty kernel) needs more than the preset gives. At most
    MAX_SETS sets in all, so that a check's time stays bounded; a cell that would need more
    stays inconclusive, saying how many."""
    wide = [c for c in cells if c.verdict == regression.INCONCLUSIVE and not c.noise and not c.categorical
            and c.comparison.p is not None]
    left: dict[int, str] = {}  # cell index: why it was not extended
    for i, cell in enumerate(wide):
        per_set, needed = len(cell.candidate_values), repetitions_needed(cell.comparison, threshold)
        if needed is None or needed > MAX_SETS * per_set:
            left[i] = (f"; about {needed} repetitions would settle it, more than {MAX_SETS} sets of {per_set}"
                       if needed else "; its estimate lies on the threshold's edge")
            continue
        while len(cell.candidate_values) < needed and not cell.noise and cell.sets < MAX_SETS:
            more = _again(cell, measure, stored)
            cell.noise = more.noise
            cell.candidate_values += more.candidate_values
            if stored is None:
                cell.baseline_values += more.baseline_values
            cell.sets += 1
    if any(c.sets > 1 for c in wide):
        judge(cells, threshold)
    for i, cell in enumerate(wide):
        cell.why += left.get(i, f" ({len(cell.candidate_values)} repetitions in {cell.sets} sets)")


def repetitions_needed(c: regression.Comparison, threshold: float) -> int | None:
    """Repetitions after which an interval as wide as this one, narrowing as 1/sqrt(n), would
    clear the threshold's band edge nearest its estimate (with a 20% margin); None where the
    estimate lies on that edge: within a tenth of the interval's half-width of it (more than 120
    times the repetitions: a count that says nothing, as the estimate itself moves that much)."""
    half = (math.log(c.high) - math.log(c.low)) / 2
    room = abs(abs(math.log(c.ratio)) - math.log1p(threshold))
    if room < 1e-9 or room < half / 10:
        return None
    return math.ceil(1.2 * len(c.candidate) * (half / room) ** 2)


def confirm(cells: list[Cell], threshold: float, measure: Measure, stored: dict | None) -> None:
    """A cell judged regressed or improved is measured once more; the verdict stands only if the
    new repetitions alone (one comparison: no correction) say the same."""
    for cell in cells:
        if cell.verdict not in (regression.REGRESSED, regression.IMPROVED):
            continue
        again = _again(cell, measure, stored)
        judge([again], threshold)  # alone, Holm's correction leaves its p as it is
        if again.verdict == cell.verdict:
            ratio = again.comparison.ratio
            cell.why += "; confirmed by a second measurement" + (f" ({ratio:.3f}x)" if ratio else "")
        else:
            cell.why = (f"{cell.verdict} at first ({cell.why}), but a second measurement said {again.verdict} "
                        f"({again.why})")
            cell.verdict = regression.INCONCLUSIVE
