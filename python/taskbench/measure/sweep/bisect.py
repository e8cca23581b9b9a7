"""The sweep of a campaign whose runs are deterministic (a simulated one): a bisection towards
the threshold's crossing instead of the adaptive plan (measure/sweep/adaptive.py).

A simulated run gives the same result every time (docs/simulation.md), so what the measured
plan spends against noise (tries, repetitions, every coarse size down to a quarter of the
threshold) decides nothing there, and each run of a large simulated machine costs minutes. This
plan runs the start size first (the campaign's peak, as in the adaptive plan: the efficiencies
are read against it), then looks for the crossing among exactly the sizes the adaptive plan
would end on (fine_grid: its coarse steps of `factor`, each cut into `refine_points` + 1 as its
polish round cuts the step that crosses), and stops when two neighbours of that grid bracket
the threshold. Those are the two sizes the adaptive plan crosses between on a monotone curve,
so the fit (measure/metg/fit.py) reads the same METG from fewer runs.

Where it looks first: the -iter where the previous node count's METG crossed (SweepParams.seeds,
set by commands/metg/simulated.py): the curve moves little from one node count to the next, so the seed
and one neighbour usually bracket it (3 runs with the peak's). From the seed it gallops (1, 2,
4... grid steps) until the crossing is bracketed, then halves the bracket; without a seed it
halves the whole grid (compute_bound's 32 sizes: 6 probes at most, where the adaptive plan
makes 8 or 9 runs).

Like the adaptive planner, its decisions depend only on the results of the runs it planned, so
a resumed campaign replays the same plan over its stored runs (the seed is stored with it).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from taskbench.measure.metg.methods import CurvePoint
from taskbench.measure.sweep.params import SweepParams
from taskbench.measure.sweep.adaptive import AdaptivePlanner, refined_sizes, _SystemState

PLAN = "bisect"  # SweepParams.plan


def fine_grid(params: SweepParams) -> list[int]:
    """The sizes the adaptive plan can end on, largest first: its coarse steps from the start
    size (divided by `factor` down to `min_iter`, as the adaptive plan's down phase does) and the sizes
    its polish round puts inside a step that crosses the threshold."""
    coarse = [max(params.start_iter, params.min_iter)]
    while coarse[-1] > params.min_iter:
        coarse.append(max(coarse[-1] // params.factor, params.min_iter))
    sizes = []
    for hi, lo in zip(coarse, coarse[1:]):
        sizes += [hi, *refined_sizes(hi, lo, params)]
    return sizes + [coarse[-1]]


def crossing_iter(points: list[CurvePoint], seconds: float, threshold: float) -> float | None:
    """The -iter where a curve's METG of `seconds` crosses the threshold: its kernel time per
    task at the crossing, seconds x threshold (measure/metg/fit.py), placed between the two points
    whose kernel times surround it, linearly in log as the fit interpolates; None where no two do."""
    target = math.log(seconds * threshold)
    work = sorted((math.log(p.granularity * p.efficiency), math.log(p.iter)) for p in points if p.ok)
    for (w_lo, it_lo), (w_hi, it_hi) in zip(work, work[1:]):
        if w_lo <= target <= w_hi and w_hi > w_lo:
            return math.exp(it_lo + (target - w_lo) / (w_hi - w_lo) * (it_hi - it_lo))
    return None


def expected_runs(params: SweepParams) -> int:
    """Runs to expect per sweep (the progress bar's length before any has run): the peak's and
    two seeded probes, or the halvings of the whole grid, for each system and repetition."""
    probes = math.ceil(math.log2(len(fine_grid(params)) + 1))
    return sum(params.reps * (1 + (2 if params.seeds.get(s) else probes)) for s in params.systems)


@dataclass
class _Search:
    """Where a system's bisection stands, as indices into fine_grid: `above` the largest known
    at or above the threshold, `below` the smallest known under it (None: none yet, as if one
    lay past the smallest size); the gallop's direction (+1: towards smaller sizes, the probes
    so far efficient; -1: towards larger ones) and next stride, 0 once it halves instead."""
    seed: int | None = None
    seeded: bool = False  # the seed's turn has come (probed, or skipped where known already)
    above: int = 0
    below: int | None = None
    direction: int = 0
    step: int = 0
    last: int = 0  # the index probed last


class Bisection(AdaptivePlanner):
    """AdaptivePlanner's bookkeeping (tries, results, peaks, interleaving) with the sizes
    chosen by bisection; one try a unit, no added repetitions: a rerun would give the same."""

    def __init__(self, params: SweepParams, peaks, campaign: str = "", drift: dict | None = None):
        super().__init__(params, peaks, campaign, drift)
        self.grid = fine_grid(params)
        self.search = {name: _Search(seed=self._seed_index(params.seeds.get(name))) for name in params.systems}

    def _seed_index(self, seed: float | None) -> int | None:
        """The grid's last size at or above the seed's -iter: the upper side of the step it lies in."""
        if not seed:
            return None
        at_or_above = [i for i, size in enumerate(self.grid) if size >= seed]
        return at_or_above[-1] if at_or_above else 0

    def _advance(self, state: _SystemState) -> list[tuple[int, int]] | None:
        search = self.search[state.name]
        if state.phase == "start":
            state.phase = "bisect"
            return self._every_rep([self.grid[0]])
        if state.phase != "bisect":
            return None
        index = self._next_index(state, search)
        if index is None:
            state.phase = "done"
            return None
        search.last = index
        return self._every_rep([self.grid[index]])

    def _efficient(self, state: _SystemState, index: int) -> bool | None:
        """Whether the size at `index` reached the threshold (the median of its repetitions);
        None where every repetition failed."""
        effs = self._level_efficiencies(state.name, self.grid[index])
        if not effs:
            statuses = {run.get("status") for run in self._level(state.name, self.grid[index])}
            why = ("it ran past --timeout on this machine: a longer --timeout may finish it" if "timeout" in statuses
                   else "a simulated run fails the same way every time" if self.params.simulation
                   else "every repetition failed: the failures say why")
            state.note = f"the bisection stopped: -iter {self.grid[index]} failed ({why})"
            return None
        return statistics.median(effs) >= self.params.threshold

    def _next_index(self, state: _SystemState, search: _Search) -> int | None:
        """Learn from the last probe, then the next index to probe; None when done."""
        efficient = self._efficient(state, search.last)
        if efficient is None:
            return None
        if search.last == 0 and not efficient:
            state.note = (f"the bisection stopped: the start size (-iter {self.grid[0]}) is under the threshold "
                          "(--start-iter: a larger one)")
            return None
        _learn(search, efficient)
        last = len(self.grid) - 1
        if search.below is None and search.above == last:
            return None  # efficient at the smallest size: the METG is a bound, which the analysis says
        if search.below is not None and search.below - search.above <= 1:
            return None  # two neighbours bracket the threshold
        if search.seed is not None and not search.seeded:
            search.seeded = True
            if search.seed > search.above:
                return search.seed
            search.direction, search.step = 1, 1  # the seed is the start size: gallop down from it
        if search.step:
            return _gallop(search, last)
        return (search.above + (last + 1 if search.below is None else search.below)) // 2


def _learn(search: _Search, efficient: bool) -> None:
    """Narrow the bracket by the last probe. A gallop starts at the seed, the way its result
    says, doubles its stride while each probe lands on the side it left from, and hands over to
    halving at the first probe that crosses."""
    index = search.last
    if efficient:
        search.above = max(search.above, index)
    else:
        search.below = index if search.below is None else min(search.below, index)
    if search.seeded and index == search.seed and search.step == 0 and search.direction == 0:
        search.direction, search.step = (1 if efficient else -1), 1
    elif search.step:
        crossed = efficient != (search.direction == 1)
        search.step = 0 if crossed else search.step * 2


def _gallop(search: _Search, last: int) -> int:
    if search.direction == 1:
        return min(search.above + search.step, last if search.below is None else search.below - 1)
    return max(search.below - search.step, search.above + 1)


def crossings(analysis) -> dict[str, float]:
    """{system: the -iter where its METG crossed the threshold}, for the systems that have one
    (an upper bound or no METG seeds nothing: the next bisection halves the whole grid)."""
    found = {}
    for system, curve in analysis.curves.items():
        s = curve.summary
        if s.status == "found" and s.seconds:
            points = [p for reps in curve.reps.values() for p in reps]
            at = crossing_iter(points, s.seconds, analysis.params.threshold)
            if at is not None:
                found[system] = at
    return found
