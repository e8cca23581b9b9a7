"""check/metg_grid.py: the grid both sides of a check run, and the METGs that pair; and the
check's second sets of repetitions for a cell whose interval is too wide (check/verdicts.py)."""
from __future__ import annotations

import math
import random

import pytest

from taskbench.check import verdicts as V
from taskbench.check import metg_grid as G
from taskbench.check import regression as R
from taskbench.check.sampling import EMPTY
from taskbench.measure.metg.methods import CurvePoint, MetgValue


def test_the_bracket_spans_every_repetition_that_crossed():
    values = [MetgValue(1e-6, "found", deciding=(512, 256)), MetgValue(2e-6, "found", deciding=(1024, 512)),
              MetgValue(None, "none", "never reaches 50% (best 40%)"),
              MetgValue(3e-7, "unbracketed", deciding=(4096,))]
    assert G.bracket(values) == (256, 1024)
    assert G.bracket(values[2:]) is None


def test_the_grid_is_the_sqrt2_lattice_around_each_bracket_in_decreasing_order():
    # 2^(j/2) for j = 2 log2(256) - 1 = 15 .. 2 log2(512) + 1 = 19
    assert G.grid([(256, 512)]) == [724, 512, 362, 256, 181]
    # Two sides far apart: the union of their windows, no size twice.
    assert G.grid([(256, 512), (2048, 2048)]) == [2896, 2048, 1448, 724, 512, 362, 256, 181]
    assert G.grid([(1, 2)]) == [3, 2, 1]  # never below -iter 1 (2^(-1/2) rounds to it)
    sizes = G.grid([(300, 5000)])
    steps = [a / b for a, b in zip(sizes, sizes[1:])]
    assert all(s == pytest.approx(math.sqrt(2), rel=0.01) for s in steps)
    assert sizes[-1] < 300 / 1.4 and sizes[0] > 5000 * 1.4


def curve(efficiencies: dict[int, float], unit_seconds: float = 1e-9) -> list[CurvePoint]:
    """A curve whose granularity grows with -iter (one task: iter x unit / efficiency)."""
    return [CurvePoint(i, i * unit_seconds / e, e) for i, e in efficiencies.items()]


def test_metgs_pair_only_where_both_sides_cross():
    clean = {1024: 0.8, 512: 0.6, 256: 0.4, 128: 0.2}
    twice = {1024: 0.8, 512: 0.4, 256: 0.6, 128: 0.2}  # noise: read point to point, it crosses three times
    never = {1024: 0.45, 512: 0.3, 256: 0.2, 128: 0.1}
    base = G.metg_per_repetition({0: curve(clean), 1: curve(clean), 2: curve(twice), 3: curve(clean)}, 0.5)
    cand = G.metg_per_repetition({0: curve(clean, 2e-9), 1: curve(never), 2: curve(clean), 3: curve(clean)}, 0.5)
    assert [G.clean(v) for v in base.values()] == [True, True, True, True]
    assert [G.clean(v) for v in cand.values()] == [True, False, True, True]
    assert cand[1].note == "never reaches 50% (best 45%)"
    b, c = G.pairs(base, cand)
    assert len(b) == len(c) == 3  # repetitions 0, 2 and 3
    assert c[0] / b[0] == pytest.approx(2.0)  # the same curve at twice the time per iteration
    assert c[2] == pytest.approx(b[2])
    # The noisy repetition, fitted: 512 and 256 pooled to 0.5, so 50% is reached at -iter 256
    # (the block's first size): METG = its work per task (256 ns) / 50%.
    assert b[1] == pytest.approx(256e-9 / 0.5)


def test_a_failed_run_is_no_point_of_the_curve():
    point = G.curve_point(256, {"status": "timeout", "granularity_seconds": None}, None, False)
    assert not point.ok
    point = G.curve_point(256, {"status": "ok", "granularity_seconds": 1e-6}, 0.4, True)
    assert point.ok and point.disturbed


def comparison(ratio: float, half_width: float, n: int) -> R.Comparison:
    return R.Comparison(tuple([1.0] * n), tuple([ratio] * n), 0.5, ratio, ratio * math.exp(-half_width),
                        ratio * math.exp(half_width), paired=True)


def test_the_repetitions_needed_grow_as_the_square_of_the_width_over_the_room_left():
    # Estimate 1.0, half-width 0.06 in log, band edge log(1.05) = 0.0488 away: 1.2 x 30 x (0.06/0.0488)^2
    assert V.repetitions_needed(comparison(1.0, 0.06, 30), 0.05) == math.ceil(1.2 * 30 * (0.06 / math.log(1.05)) ** 2)
    # Closer to the edge, more; on it, no number would do.
    assert V.repetitions_needed(comparison(1.03, 0.06, 30), 0.05) > 4 * 30
    assert V.repetitions_needed(comparison(1.05, 0.06, 30), 0.05) is None
    # Within a tenth of the half-width of it (a check once said "about 363557 repetitions"): the edge.
    assert V.repetitions_needed(comparison(1.049, 0.06, 30), 0.05) is None
    assert V.repetitions_needed(comparison(1.04, 0.06, 30), 0.05) > 4 * 30


class Repetitions:
    """A stand-in for the check's measurement: each set is `per_set` paired repetitions whose
    ratios scatter by 12% around 1 (a runtime whose runs differ that much, as native_dynamic's)."""

    def __init__(self, per_set: int, seed: int = 1):
        self.per_set, self.sets, self.random = per_set, 0, random.Random(seed)

    def measure(self, cell, both: bool) -> None:
        self.sets += 1
        cell.baseline_values = [1e-6] * self.per_set
        cell.candidate_values = [1e-6 * math.exp(self.random.gauss(0, 0.12)) for _ in range(self.per_set)]
        cell.paired = True


def test_a_wide_interval_gets_more_sets_and_is_then_judged_on_all_of_them():
    source = Repetitions(per_set=30)
    cell = V.Cell("native", "native@baseline", EMPTY)
    source.measure(cell, True)
    source.sets = 0
    V.judge([cell], 0.05)
    assert cell.verdict == R.INCONCLUSIVE and "crosses the 5% threshold" in cell.why
    needed = V.repetitions_needed(cell.comparison, 0.05)
    V.extend([cell], 0.05, source.measure, None)
    assert source.sets == math.ceil(needed / 30) - 1 and cell.sets == source.sets + 1
    assert len(cell.candidate_values) == len(cell.baseline_values) == 30 * cell.sets >= needed
    assert cell.verdict == R.UNCHANGED
    assert cell.why.endswith(f"({30 * cell.sets} repetitions in {cell.sets} sets)")


def test_a_cell_that_would_need_more_than_the_most_sets_is_left_inconclusive_saying_how_many():
    source = Repetitions(per_set=10, seed=2)
    cell = V.Cell("native", "native@baseline", EMPTY)
    source.measure(cell, True)
    source.sets = 0
    V.judge([cell], 0.05)
    needed = V.repetitions_needed(cell.comparison, 0.05)
    assert cell.verdict == R.INCONCLUSIVE and needed > V.MAX_SETS * 10
    V.extend([cell], 0.05, source.measure, None)
    assert source.sets == 0 and cell.verdict == R.INCONCLUSIVE
    assert cell.why.endswith(f"; about {needed} repetitions would settle it, more than {V.MAX_SETS} sets of 10")


def test_noise_is_never_extended():
    source = Repetitions(per_set=30)
    cell = V.Cell("native", "native@baseline", EMPTY, noise="other processes used 0.6 cores")
    source.measure(cell, True)
    source.sets = 0
    V.judge([cell], 0.05)
    V.extend([cell], 0.05, source.measure, None)
    assert source.sets == 0 and cell.verdict == R.INCONCLUSIVE and cell.why == "other processes used 0.6 cores"
