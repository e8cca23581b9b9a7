"""The METG sweep's adaptive plan (`--plan adaptive`, the default): which problem sizes (-iter)
to run, in what order, resumably.

Plan, per system, as a small state machine fed only by the results it has seen:
  up       the first size should be clearly efficient; while its median efficiency is below
           1.2 x threshold (with a known peak), go up by `factor` (at most `max_up` times,
           only while runs stay short);
  down     divide -iter by `factor` until every repetition is well below the threshold
           (efficiency < threshold/2), or -iter reaches 1, or two sizes in a row all failed;
  polish   first, go up after all if the first size no longer looks efficient against the
           peak as now known (the peak rises as runs come in), and down again if later tries
           lifted the smallest size to threshold/2 or above in some repetition (its first tries
           were disturbed: without it the METG would be an upper bound); then rounds (at most
           1 + `rechecks`) of: refine each step that brackets the threshold
           in some repetition and is still coarse (`refine_points` sizes evenly spaced in
           log(-iter)), and more tries around the crossings (see Tries);
  settle   repetitions of the two sizes around the fitted crossing added, one per batch, while
           the METG's interval is wider than `target_interval` (measure/sweep/settle.py);
  done.
Every batch runs interleaved across systems and repetitions (the machine is noisy: a burst of
background load then hits every system instead of one system's whole curve).

Tries: background load only ever slows a run down, so the fastest of several runs is the best
estimate of what a system can do. The first pass runs every point once; polish rounds then
spend runs only where they decide the METG, around each repetition's crossing: points near the
threshold run up to `tries` times, a point far below the same size in another repetition (a
disturbed run) gets `tries` more, and while the repetitions' METGs disagree by more than
`max_spread`/2 every near-threshold point gets `tries` more, later in time (load bursts on a
shared machine last longer than one batch). The fastest successful try counts (best_of). A try
that fails is not retried: validation failures and crashes are the system's, not noise.

Load: a try that other processes disturbed (measure/noise.py: they used more than 0.25 cores
while it ran, judged on runs long enough to tell) does not settle its point: while every try of
a point was disturbed, it runs again, at most DISTURBED_RETRIES more times, in a later round of
the batch. The fastest undisturbed try counts, or the fastest when every one was disturbed;
every try is stored with its background load.

Resume: each run has the key system/iter/rep/try. The planner's decisions depend only on the
results of runs it planned earlier, so replaying it over the stored results rebuilds the same
plan; stored keys are reused and only missing ones run.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass, field

from taskbench.measure.noise import disturbed
from taskbench.measure.metg import fit as metg_fit
from taskbench.measure.sweep import settle
from taskbench.measure.kernels import throughput
from taskbench.measure.metg.methods import CurvePoint, efficiency, metg_of_curve, repetition_spread
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams, best_of

Unit = tuple[str, int, int]  # (system, iter, rep): one point of one repetition's curve
RETRY_MAX_SECONDS = 1.0  # runs longer than this are not repeated for precision
UP_MAX_RUN_SECONDS = 3.0  # the sweep goes up only while runs stay shorter than this
# More tries of a point whose every try was disturbed: other tenants' builds and tests come and
# go within seconds to minutes, so a try later in the batch often finds the machine quiet; on a
# machine that stays busy, each more would only add to the campaign's time.
DISTURBED_RETRIES = 2


@dataclass
class _SystemState:
    name: str
    phase: str = "start"
    coarse: list[int] = field(default_factory=list)  # sizes in decreasing order
    ups: int = 0
    polishes: int = 0
    failed_streak: int = 0
    note: str = ""
    added: int = 0  # repetitions added near the crossing (settle)
    settled: str = ""  # how adding them ended, for the console


class AdaptivePlanner:
    def __init__(self, params: SweepParams, peaks: PeakTable, campaign: str = "", drift: dict | None = None):
        self.params = params
        self.peaks = peaks
        self.campaign = campaign  # seeds the intervals as the campaign's analysis does
        # {system: tau}, this machine's drift between campaigns where measured (measure/metg/rerun.py):
        # the added repetitions stop where it would swamp them (settle.target).
        self.drift = drift or {}
        self.tries: dict[Unit, list[dict]] = {}
        self.budget: dict[Unit, int] = {}  # the tries of the units a polish round gave more than one
        self.results: dict[Unit, dict] = {}  # the best try of each finished unit
        self.states = {name: _SystemState(name) for name in params.systems}

    # -- feedback ---------------------------------------------------------------------------
    def add_try(self, unit: Unit, run: dict) -> None:
        self.tries.setdefault(unit, []).append(run)
        if run.get("status") == "ok":
            self.peaks.observe(run)

    def attempts(self, unit: Unit) -> int:
        return len(self.tries.get(unit, []))

    def _planned(self, unit: Unit) -> int:
        if unit not in self.budget:
            return 1
        if unit[2] >= self.params.reps and _longest(self.tries.get(unit, [])) > RETRY_MAX_SECONDS:
            return 1  # an added repetition's long run is not repeated either (_give_tries)
        return self.budget[unit]

    def wants_another_try(self, unit: Unit) -> bool:
        """The first try always; more where a polish round asked for them, or while every try
        was disturbed."""
        runs = self.tries.get(unit, [])
        if not runs:
            return True
        if not all(r.get("status") == "ok" for r in runs):
            return False
        return len(runs) < self._planned(unit) or self.repeats_for_load(unit)

    def repeats_for_load(self, unit: Unit) -> bool:
        """Whether the unit's next try is owed to load alone: its planned tries are done, and
        every one of them was disturbed."""
        runs = self.tries.get(unit, [])
        planned = self._planned(unit)
        return planned <= len(runs) < planned + DISTURBED_RETRIES and all(disturbed(r) for r in runs)

    def finish(self, batch: list[Unit]) -> None:
        for unit in batch:
            self.results[unit] = best_of(self.tries[unit], self.params.kernel)

    def efficiency_of(self, run: dict | None) -> float | None:
        if run is None or run.get("status") != "ok":
            return None
        return efficiency(throughput(run, self.params.kernel),
                          self.peaks.peak_for(run.get("system"), run.get("cores")))

    def _near_threshold(self, eff: float | None) -> bool:
        t = self.params.threshold
        return eff is not None and 0.4 * t <= eff <= min(0.95, 1.6 * t)

    def _level(self, system: str, iterations: int) -> list[dict]:
        return [self.results[k] for k in ((system, iterations, r) for r in range(self.params.reps))
                if k in self.results]

    def _level_efficiencies(self, system: str, iterations: int) -> list[float]:
        effs = (self.efficiency_of(run) for run in self._level(system, iterations))
        return [e for e in effs if e is not None]

    # -- planning ---------------------------------------------------------------------------
    def next_batch(self) -> list[Unit]:
        steps: dict[str, list[tuple[int, int]]] = {}
        for name, state in self.states.items():
            units = self._advance(state)
            if units:
                steps[name] = units
        return self._interleave(steps)

    def _interleave(self, steps: dict[str, list[tuple[int, int]]]) -> list[Unit]:
        names = list(steps)
        batch = []
        for rep in sorted({r for units in steps.values() for _, r in units}):
            # Rotate the system order per repetition so no system always runs first.
            order = names[rep % len(names):] + names[:rep % len(names)]
            per_system = [[(n, it, rep) for it, r in steps[n] if r == rep] for n in order]
            batch += [unit for row in itertools.zip_longest(*per_system) for unit in row if unit is not None]
        return batch

    def _every_rep(self, iters: list[int]) -> list[tuple[int, int]]:
        return [(it, rep) for rep in range(self.params.reps) for it in iters]

    def _advance(self, state: _SystemState) -> list[tuple[int, int]] | None:
        p = self.params
        if state.phase == "start":
            state.phase = "up"
            state.coarse = [max(p.start_iter, p.min_iter)]
            return self._every_rep([state.coarse[0]])
        if state.phase == "up":
            if self._should_go_up(state):
                return self._go_up(state)
            state.phase = "down"
        if state.phase == "down":
            step = self._step_down(state)
            if step:
                return self._every_rep(step)
            state.phase = "polish"
        if state.phase == "polish":
            # The peak keeps improving as runs come in, so a first size that looked efficient
            # may not be any more: go up now rather than report "no METG".
            if self._should_go_up(state):
                return self._go_up(state)
            # And a smallest size whose first tries were disturbed may since have reached x/2
            # in some repetition: go down again, so that the METG is bracketed, not a bound.
            step = self._step_down(state)
            if step:
                return self._every_rep(step)
            units = self._polish(state) if state.polishes <= p.rechecks else []
            state.polishes += 1
            if units:
                return units
            state.phase = "settle"
        if state.phase == "settle":
            units = self._settle(state)
            if units:
                return units
            state.phase = "done"
        return None

    def _settle(self, state: _SystemState) -> list[tuple[int, int]]:
        """One more repetition of the two sizes around the crossing, while the METG's interval is
        wider than the target and the budget lasts (measure/sweep/settle.py); each of its points gets
        the tries a point near the threshold gets."""
        p = self.params
        rep = p.reps + state.added
        sizes, state.settled = settle.next_sizes(
            self._all_curves(state.name), p, state.added, metg_fit.seed_of(f"{self.campaign}/{state.name}"),
            spent=self._wall(lambda u: u[2] >= p.reps), sweep=self._wall(lambda u: u[2] < p.reps),
            tau=self.drift.get(state.name))
        for size in sizes:
            self.budget[(state.name, size, rep)] = p.tries
        state.added += bool(sizes)
        return [(size, rep) for size in sizes]

    def _wall(self, which) -> float:
        """Seconds the tries of the units `which` picks have taken (their wall time)."""
        return sum(r.get("wall_seconds") or 0.0 for unit, runs in self.tries.items() if which(unit) for r in runs)

    def _all_curves(self, system: str) -> dict[int, list[CurvePoint]]:
        reps = {rep for (s, _, rep) in self.results if s == system}
        return {rep: self._curve(system, rep) for rep in sorted(reps)}

    def _go_up(self, state: _SystemState) -> list[tuple[int, int]]:
        state.ups += 1
        state.coarse.insert(0, state.coarse[0] * self.params.factor)
        return self._every_rep([state.coarse[0]])

    def _should_go_up(self, state: _SystemState) -> bool:
        p = self.params
        top = state.coarse[0]
        effs = self._level_efficiencies(state.name, top)
        if not effs or state.ups >= p.max_up:
            return False
        # Clearly above the threshold is enough: larger sizes cost time and tell nothing new.
        high = min(0.95, 1.2 * p.threshold)
        slowest = _longest(self._level(state.name, top))
        # A run `factor` times longer must stay short: a system that needs huge tasks to be
        # efficient is reported as such ("no METG", best efficiency) instead of eating the time.
        if slowest * p.factor > min(p.timeout / 4, UP_MAX_RUN_SECONDS):
            return False
        return statistics.median_high(effs) < high

    def _step_down(self, state: _SystemState) -> list[int] | None:
        p = self.params
        lowest = state.coarse[-1]
        effs = self._level_efficiencies(state.name, lowest)
        state.failed_streak = 0 if effs else state.failed_streak + 1
        if state.failed_streak >= 2:
            state.note = "two sizes in a row failed in every repetition"
            return None
        if effs and max(effs) < p.threshold / 2:
            return None  # well below the threshold in every repetition
        if lowest <= p.min_iter:
            return None
        nxt = max(lowest // p.factor, p.min_iter)
        state.coarse.append(nxt)
        return [nxt]

    def _sizes(self, system: str) -> list[int]:
        return sorted({it for (s, it, _) in self.results if s == system}, reverse=True)

    def _brackets(self, system: str, sizes: list[int]) -> set[tuple[int, int]]:
        """(hi, lo): consecutive sizes of a repetition's curve (its failed points left out) whose
        efficiencies lie on either side of the threshold."""
        p = self.params
        pairs = set()
        for rep in range(p.reps):
            effs = [(it, self.efficiency_of(self.results.get((system, it, rep)))) for it in sizes]
            curve = [(it, e) for it, e in effs if e is not None]
            pairs.update((hi, lo) for (hi, e_hi), (lo, e_lo) in zip(curve, curve[1:]) if e_hi >= p.threshold > e_lo)
        return pairs

    def _refinement(self, system: str) -> list[int]:
        """Sizes inside each step that brackets the threshold in some repetition and is still
        coarser than a refined step."""
        sizes = self._sizes(system)
        extra = set()
        for hi, lo in self._brackets(system, sizes):
            extra.update(it for it in refined_sizes(hi, lo, self.params) if it not in sizes)
        return sorted(extra, reverse=True)

    def _curve(self, system: str, rep: int) -> list[CurvePoint]:
        points = []
        for (s, it, r), run in self.results.items():
            if s == system and r == rep:
                eff = self.efficiency_of(run)
                points.append(CurvePoint(it, run.get("granularity_seconds") if eff is not None else None, eff))
        return points

    def _relevant_sizes(self, system: str) -> set[int]:
        """The sizes that decide the METG: each repetition's bracketing pairs (in sweep order),
        what lies between them, and one size on either side."""
        sizes = self._sizes(system)
        relevant: set[int] = set()
        for hi, lo in self._brackets(system, sizes):
            relevant.update(sizes[max(0, sizes.index(hi) - 1):sizes.index(lo) + 2])
        return relevant

    def _outliers(self, system: str, sizes: set[int]) -> list[Unit]:
        """Points far below the same size in another repetition: a disturbed run, which would
        bend that repetition's curve."""
        p = self.params
        out = []
        for it in sorted(sizes, reverse=True):
            effs = {rep: self.efficiency_of(self.results.get((system, it, rep))) for rep in range(p.reps)}
            for rep, eff in effs.items():
                others = [e for r, e in effs.items() if r != rep and e is not None]
                if eff is not None and others and eff < 0.75 * max(others):
                    out.append((system, it, rep))
        return out

    def _disagreeing(self, system: str) -> bool:
        p = self.params
        found, spread = repetition_spread([metg_of_curve(self._curve(system, rep), p.threshold)
                                           for rep in range(p.reps)])
        # Aim below the warning level, so that the final spread has a margin under it.
        return (found > 1 and spread > p.max_spread / 2) or 0 < found < p.reps

    def _give_tries(self, unit: Unit, up_to: int) -> bool:
        if up_to <= self.attempts(unit):
            return False
        # Long runs average bursts of load out by themselves; repeating them costs the most.
        if _longest(self.tries[unit]) > RETRY_MAX_SECONDS:
            return False
        self.budget[unit] = up_to
        return True

    def _polish(self, state: _SystemState) -> list[tuple[int, int]]:
        """One polish round (the module's docstring: polish, Tries), only around the crossings:
        elsewhere a run's precision does not change the METG."""
        p = self.params
        system = state.name
        units = {(it, rep) for it in self._refinement(system) for rep in range(p.reps)}
        if p.tries > 1:
            sizes = self._relevant_sizes(system)
            near = [u for u in ((system, it, rep) for it in sizes for rep in range(p.reps))
                    if u in self.results and self._near_threshold(self.efficiency_of(self.results[u]))]
            chosen = [u for u in near if self._give_tries(u, p.tries)]
            chosen += [u for u in self._outliers(system, sizes)
                       if self._give_tries(u, self.attempts(u) + p.tries)]
            if state.polishes > 0 and self._disagreeing(system):
                chosen += [u for u in near if self._give_tries(u, self.attempts(u) + p.tries)]
            units.update((u[1], u[2]) for u in chosen)
        return sorted(units, key=lambda u: (u[1], -u[0]))


def refined_sizes(hi: int, lo: int, params: SweepParams) -> list[int]:
    """The sizes a polish round runs inside the step hi > lo (decreasing; none where the step is
    already as fine as a refined coarse step): as many as make it that fine, evenly spaced in
    log(-iter). measure/sweep/bisect.py searches the same sizes, so both plans cross between the same two."""
    finest = (params.factor ** (1 / (params.refine_points + 1))) * 1.01
    if hi / lo <= finest:
        return []
    n = max(1, round(math.log(hi / lo) / math.log(params.factor) * (params.refine_points + 1))) - 1
    inside = (round(math.exp(math.log(hi) + j / (n + 1) * (math.log(lo) - math.log(hi)))) for j in range(1, n + 1))
    return sorted({it for it in inside if lo < it < hi}, reverse=True)


def _longest(runs: list[dict]) -> float:
    """The longest wall time of these runs (0 for none)."""
    return max((r.get("wall_seconds") or 0.0 for r in runs), default=0.0)
