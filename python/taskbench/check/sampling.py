"""The runs a `taskbench check` makes. A check is only as good as its runs: both sides run
interleaved, run by run (the METGs on one grid of sizes, check/metg_grid.py), so that a slow
minute of the machine hits both; every run lasts long enough to measure the runtime, not the
timer; and a side's runs that other processes disturbed are said to be, so that their verdict
is inconclusive instead of a guess. Judging the repetitions is check/verdicts.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench.measure.noise import DISTURBED_CORES, disturbed
from taskbench.measure.sweep import campaign
from taskbench.check import metg_grid
from taskbench.measure.analysis import analyze
from taskbench.check.verdicts import MIN_CLEAN_SHARE, Cell, never_efficient
from taskbench.measure.kernels import throughput
from taskbench.measure.metg.methods import efficiency
from taskbench.measure.metg.reliability import background_load
from taskbench.measure.sweep.params import SweepParams

SMALL_ITER = 1024
# The metrics, smaller is better, and the finest relative change each can express at all (its
# quantization; the noise is the statistics' to weigh). A fixed grain's time per task comes from
# the core's Elapsed Time, printed to 7 significant digits over a run of 50 ms or more: 1e-6.
# A METG is interpolated in log(granularity) between the two sizes around its crossing, so it
# moves continuously with their efficiencies (FLOPs over those same elapsed times): 1e-6 of
# them, times the slope of the interpolation (at most about 5 near 50%, between grid sizes
# sqrt(2) apart, check/metg_grid.py). Read off the nearest size instead, it could not show a
# change below that step (41%). No --threshold below the coarsest is taken.
EMPTY, SMALL, METG = "per-task time, empty kernel", f"per-task time, compute_bound -iter {SMALL_ITER}", "METG(50%)"
GRAIN_FLAGS = {EMPTY: ["-kernel", "empty"], SMALL: ["-kernel", "compute_bound", "-iter", str(SMALL_ITER)]}
RESOLUTION = {EMPTY: 1e-6, SMALL: 1e-6, METG: 5e-6}
MIN_THRESHOLD = max(RESOLUTION.values())


@dataclass(frozen=True)
class Preset:
    grain_seconds: float  # how long a fixed-grain run lasts: its timesteps are set from a pilot run
    grain_reps: int
    metg_seconds: float  # how long a METG grid run near the crossings lasts (its timesteps: from the pilot sweep)
    metg_reps: int


# Runs of a few milliseconds measure the machine's hiccups: 4 ms runs at the crossing gave the
# pairs' efficiency ratios a spread of 5-10%, 25 ms runs 4%, 0.2 s fixed grains 1-2%.
FULL = Preset(grain_seconds=0.4, grain_reps=60, metg_seconds=0.05, metg_reps=40)
QUICK = Preset(grain_seconds=0.1, grain_reps=30, metg_seconds=0.025, metg_reps=40)
PILOT_STEPS, MIN_STEPS, MAX_STEPS = 1000, 100, 1_000_000
PILOT_REPS = 4  # of the sweep that finds where the METG grid goes
PILOT_SWEEP_SECONDS = 0.1  # a pilot sweep's run at its first size (-iter START_ITER) lasts about this
START_ITER = 1 << 14
KERNEL, THRESHOLD = "compute_bound", 0.5


class Sampler:
    """Runs the cells: every run stored in the check's campaign (the fixed grains) or in a METG
    campaign of its own (a sweep holding both sides, which the planner interleaves)."""

    def __init__(self, ctx, name: str, pattern: str, width: int, preset: Preset):
        self.ctx, self.name, self.pattern, self.width, self.preset = ctx, name, pattern, width, preset
        self.round = 0

    def all(self, pairs, metg: bool, stored: dict | None) -> list[Cell]:
        cells = []
        for candidate, baseline in pairs:
            for metric in [*GRAIN_FLAGS, *([METG] if metg else [])]:
                cell = Cell(candidate, baseline or "", metric)
                if stored is not None:
                    saved = next((c for c in stored["cells"] if c["system"] == candidate and c["metric"] == metric),
                                 None)
                    if saved is None:
                        self.ctx.console.warn(f"{candidate}: the baseline file has no {metric}: not checked")
                        continue
                    cell.baseline, cell.baseline_values = f"{candidate} (baseline file)", list(saved["values"])
                cells.append(cell)
        with self.ctx.console.progress("check") as bar:
            bar.add(len(cells))
            for cell in cells:
                self.measure(cell, stored is None)
                bar.advance(f"{cell.system}: {cell.metric}")
        return cells

    def measure(self, cell: Cell, both: bool) -> None:
        """Fills the cell's values (the baseline's too where it runs here) and its noise."""
        self.round += 1
        sides = [cell.system, cell.baseline] if both and cell.baseline else [cell.system]
        cell.paired = len(sides) == 2
        (self._metg if cell.metric == METG else self._grain)(cell, sides)

    def _graph(self) -> list[str]:
        return ["-width", str(self.width), "-type", self.pattern]

    def _metg_flags(self, iterations: int) -> list[str]:
        return [*self._graph(), "-kernel", KERNEL, "-iter", str(iterations)]

    def _run(self, system_name: str, flags: list[str], key: str, rep: int | None) -> dict:
        system = self.ctx.registry.get(system_name)
        return campaign.execute_one(
            self.ctx.store, system, flags, campaign=self.name, key=key, rep=rep,
            options=campaign.on_cores(system, None if system.external else self.width), timeout=120,
            git_revision=self.ctx.git_revision, stats=campaign.ExecutionStats())

    def _steps(self, system_name: str, flags: list[str], seconds: float, what: str) -> int:
        """Timesteps for a run of about `seconds`, from a pilot run: a run of a millisecond
        measures the timer and the machine's hiccups, not the runtime."""
        pilot = self._run(system_name, ["-steps", str(PILOT_STEPS), *flags],
                          f"{system_name}/{what}/round{self.round}/pilot", None)
        elapsed = pilot.get("elapsed_seconds") if pilot["status"] == "ok" else None
        return _scaled_steps(PILOT_STEPS, elapsed, seconds)

    def _grain(self, cell: Cell, sides: list[str]) -> None:
        graph = [*self._graph(), *GRAIN_FLAGS[cell.metric]]
        flags = ["-steps", str(self._steps(cell.system, graph, self.preset.grain_seconds, cell.metric)), *graph]
        runs = []
        for rep in range(self.preset.grain_reps):
            # Alternate which side goes first: neither always runs after the other's warm-up.
            pair = {}
            for system_name in (sides if rep % 2 == 0 else sides[::-1]):
                run = self._run(system_name, flags, f"{system_name}/{cell.metric}/round{self.round}/rep{rep}", rep)
                runs.append(run)
                if run["status"] == "ok" and run.get("granularity_seconds"):
                    pair[system_name] = run["granularity_seconds"]
                else:
                    cell.noise = f"{system_name} failed a run ({run['status']}: {run.get('reason') or ''})".strip()
            if len(pair) == len(sides):  # a pair lacking one side is no evidence of a change
                cell.candidate_values.append(pair[cell.system])
                if cell.paired:
                    cell.baseline_values.append(pair[cell.baseline])
        cell.noise = cell.noise or _busy(runs)

    def _metg(self, cell: Cell, sides: list[str]) -> None:
        """METG per repetition on one grid of sizes for both sides (check/metg_grid.py), found by a
        short pilot sweep; repetition k of both sides pairs."""
        pilots = {side: self._pilot(side, n) for n, side in enumerate(sides)}
        brackets = [b for side, pilot in pilots.items() if side in pilot.curves
                    and (b := metg_grid.bracket(pilot.curves[side].summary.values))]
        if not brackets:
            cell.noise = ("no side's pilot sweep reached 50% efficiency at any size: no METG to compare (the "
                          "fixed grains still tell)")
            return
        sizes = metg_grid.grid(brackets)
        runs = self._grid_runs(sides, sizes, self._grid_steps(sides, sizes))
        peaks = pilots[cell.system].peaks
        for run in [*(r for pilot in pilots.values() for r in pilot.runs), *runs.values()]:
            peaks.observe(run)
        points: dict[str, dict[int, list]] = {side: {} for side in sides}  # side: repetition: its curve
        for (side, iterations, rep), run in runs.items():
            eff = efficiency(throughput(run, KERNEL), peaks.peak_for(side, run.get("cores")))
            points[side].setdefault(rep, []).append(metg_grid.curve_point(iterations, run, eff, disturbed(run)))
        values = {side: metg_grid.metg_per_repetition(points[side], THRESHOLD) for side in sides}
        reps = self.preset.metg_reps
        if cell.paired:
            cell.baseline_values, cell.candidate_values = metg_grid.pairs(values[cell.baseline], values[cell.system])
        else:
            cell.candidate_values = [v.seconds for v in values[cell.system].values() if metg_grid.clean(v)]
        found = {side: sum(map(metg_grid.clean, values[side].values())) for side in sides}
        never = {side: sum(1 for v in values[side].values()
                           if v.status == "none" and v.note.startswith("never reaches")) for side in sides}
        unclean = [f"{side}: only {found[side]} of {reps} repetitions cross 50% on the grid of "
                   f"{len(sizes)} sizes (-iter {sizes[-1]}-{sizes[0]}){_why_not(values[side].values())}"
                   for side in sides if found[side] < MIN_CLEAN_SHARE * reps]
        cell.noise = "; ".join(unclean) or _busy(list(runs.values()))
        if cell.paired:
            cell.categorical = never_efficient(cell, never, found, reps)

    def _pilot(self, side: str, n: int):
        """A short sweep of one side, with timesteps of its own (a side 18 times slower would make
        the other's runs too short to tell anything, or its own too long): where it crosses 50%,
        and the peak, from its large sizes. It goes up once at most: a side below 50% at -iter
        4 * START_ITER has no METG the other side's could be near."""
        system = self.ctx.registry.get(side)
        externals = {side: {"cores": system.cores, "command": system.command}} if system.external else {}
        params = SweepParams(
            systems=[side], externals=externals, pattern=self.pattern, kernel=KERNEL, width=self.width,
            steps=self._steps(side, self._metg_flags(START_ITER), PILOT_SWEEP_SECONDS, f"{METG}/pilot"),
            threshold=THRESHOLD, reps=PILOT_REPS, tries=1, start_iter=START_ITER, refine_points=1, max_up=1,
            timeout=120, target_interval=0.0)  # where to put the grid, not a METG to narrow
        name = f"{self.name}-pilot{self.round}-{n}"
        self.ctx.store.claim(name)
        campaign.create(self.ctx.store, name, "metg", params.to_dict(), self.ctx.git_revision)
        campaign.run_sweep(self.ctx.store, self.ctx.registry, name, params, self.ctx.console, self.ctx.git_revision,
                           floor_check=False)
        return analyze(self.ctx.store, name)

    def _grid_steps(self, sides: list[str], sizes: list[int]) -> int:
        """Timesteps for grid runs of about preset.metg_seconds at the grid's middle size for the
        slower side there (both sides run the same graphs): the fewer of the sides' own."""
        middle = self._metg_flags(sizes[len(sizes) // 2])
        return min(self._steps(side, middle, self.preset.metg_seconds, f"{METG}/grid") for side in sides)

    def _grid_runs(self, sides: list[str], sizes: list[int], steps: int) -> dict[tuple[str, int, int], dict]:
        """{(side, -iter, repetition): run}: every repetition walks the grid (down, then up the next
        time), both sides at each size one after the other, in alternating order."""
        runs = {}
        for rep in range(self.preset.metg_reps):
            for j, iterations in enumerate(sizes if rep % 2 == 0 else sizes[::-1]):
                flags = ["-steps", str(steps), *self._metg_flags(iterations)]
                for side in (sides if (rep + j) % 2 == 0 else sides[::-1]):
                    runs[side, iterations, rep] = self._run(
                        side, flags, f"{side}/{METG}/round{self.round}/iter={iterations}/rep{rep}", rep)
        return runs


def _scaled_steps(steps: int, elapsed: float | None, seconds: float) -> int:
    """The timesteps that make a run of `steps` lasting `elapsed` last about `seconds`."""
    if not elapsed:
        return steps
    return int(min(MAX_STEPS, max(MIN_STEPS, steps * seconds / elapsed)))


def _why_not(values) -> str:
    """What the repetitions that did not cross did instead: "; 40 stayed below 50% at every size"."""
    values = list(values)
    below = sum(1 for v in values if v.status == "none" and v.note.startswith("never reaches"))
    above = sum(1 for v in values if v.status == "unbracketed")
    failed = sum(1 for v in values if v.status == "none" and not v.note.startswith("never reaches"))
    parts = [f"{'every one' if n == len(values) else n} {what}" for n, what in (
        (below, "stayed below 50% at every size"), (above, "stayed above 50% at every size"),
        (failed, "had no successful run")) if n]
    return f"; {', '.join(parts)}" if parts else ""


def _busy(runs: list[dict]) -> str:
    load = background_load(runs)
    if load is not None and load > DISTURBED_CORES:
        return (f"other processes used {load:.2f} cores during these runs (above {DISTURBED_CORES:g}): the machine "
                "was too busy to tell")
    return ""
