"""`taskbench check`: did this change make small tasks slower? A regression gate for runtime
developers' CI (docs/regression-gate.md).

Per system it compares a candidate (this build) with a baseline on three metrics, smaller is
better: the time per task with the empty kernel (pure overhead), the time per task at a small
grain (compute_bound, SMALL_ITER), and METG(50%). The baseline is another build's binaries
(--baseline-build DIR), another suite's port (--baseline-external), or a file a previous check
saved (--baseline FILE). With a build or a port, both sides run interleaved, run by run, in one
window: a slow minute of the machine hits both, which no stored figure can offer. The METGs pair
as the grains' runs do: both sides run one grid of sizes (measure/metg_grid.py).

The verdicts come from measure/regression.py (exact rank tests, Hodges-Lehmann intervals, Holm).
A cell inconclusive only for its interval's width gets more sets of repetitions (_extend); a
cell judged regressed or improved is measured once more, and its verdict stands only if the new
repetitions alone say the same. Exit 0: nothing regressed; 1: something did; 5: no regression
seen, but some answer is inconclusive.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from taskbench import provenance
from taskbench.errors import EXIT_OK, EXIT_REGRESSED, EXIT_UNRELIABLE, EXIT_USAGE, UserError
from taskbench.launch.runner import DISTURBED_CORES, disturbed
from taskbench.measure import campaign, metg_grid, regression
from taskbench.measure.analysis import analyze
from taskbench.measure.kernels import throughput
from taskbench.measure.metg import efficiency
from taskbench.measure.reliability import background_load
from taskbench.measure.sweep import SweepParams
from taskbench.registry.catalog import Registry
from taskbench.registry.external import add_externals, externals_from_specs, parse_spec
from taskbench.registry.locations import find_layout
from taskbench.report import check_outputs

BASELINE_FORMAT = 1  # of a --save-baseline file
BASELINE_SUFFIX = "@baseline"  # a baseline build's system, beside the candidate's in one campaign
SMALL_ITER = 1024
# The metrics, smaller is better, and the finest relative change each can express at all (its
# quantization; the noise is the statistics' to weigh). A fixed grain's time per task comes from
# the core's Elapsed Time, printed to 7 significant digits over a run of 50 ms or more: 1e-6.
# A METG is interpolated in log(granularity) between the two sizes around its crossing, so it
# moves continuously with their efficiencies (FLOPs over those same elapsed times): 1e-6 of
# them, times the slope of the interpolation (at most about 5 near 50%, between grid sizes
# sqrt(2) apart, measure/metg_grid.py). Read off the nearest size instead, it could not show a
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
MAX_SETS = 4  # of repetitions of one cell: the preset's, then as many more as its interval needs (_extend)
MIN_CLEAN_SHARE = 0.75  # of a side's METG repetitions whose fitted curve must cross 50% on the grid


@dataclass
class Cell:
    system: str  # the candidate
    baseline: str  # its baseline's name in this run (or in the saved file)
    metric: str
    baseline_values: list[float] = field(default_factory=list)
    candidate_values: list[float] = field(default_factory=list)
    paired: bool = False  # repetition k of both sides ran one after the other (regression.compare)
    sets: int = 1  # of repetitions measured (_extend)
    noise: str = ""
    # Where one side never reaches 50% efficiency and the other does: its METG is infinite, a
    # verdict no test is needed for: (verdict, why).
    categorical: tuple[str, str] | None = None
    comparison: regression.Comparison | None = None
    p_adjusted: float | None = None
    verdict: str = ""
    why: str = ""


def add_parser(subparsers, common):
    p = subparsers.add_parser(
        "check", parents=[common], help="regression gate: this build against a baseline (exit 1: regressed)",
        epilog="exit codes: 0 nothing regressed, 1 a metric regressed, 5 inconclusive (noise, a failed run, or too "
               "few repetitions to tell), 2 usage, 4 environment; docs/regression-gate.md")
    p.add_argument("systems", nargs="*", help="systems to check (default: the baseline file's, else the registry's "
                                              "default systems)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--baseline-build", metavar="DIR",
                       help="another build folder (e.g. the pull request's base): its binaries run interleaved with "
                            "this build's")
    where.add_argument("--baseline-external", metavar="NAME=CORES:COMMAND",
                       help="another suite's port as the baseline of the one system named, run interleaved")
    where.add_argument("--baseline", metavar="FILE", help="a file written by --save-baseline")
    p.add_argument("--save-baseline", metavar="FILE", help="write the candidate's figures to FILE for a later --baseline")
    p.add_argument("--allow-other-machine", action="store_true",
                   help="compare with a baseline file from another machine or build configuration")
    p.add_argument("--external", metavar="NAME=CORES:COMMAND", help="the candidate is another suite's port")
    p.add_argument("--quick", action="store_true", help="fewer and shorter repetitions (about 40 s a system on 2 cores)")
    p.add_argument("--threshold", type=float, default=5.0,
                   help=f"smallest change in percent that counts (5; at least {MIN_THRESHOLD * 100:.4f}%%, the metrics' "
                        "resolution)")
    p.add_argument("--pattern", default="stencil_1d")
    p.add_argument("--width", type=int, help="points per timestep (default: the cores available)")
    p.add_argument("--no-metg", dest="metg", action="store_false", help="the fixed grains only (seconds, not minutes)")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON (see --json-format)")
    p.add_argument("--json-format", choices=check_outputs.JSON_FORMATS,
                   help="github-action-benchmark (customSmallerIsBetter, the default) or bencher (Bencher Metric "
                        "Format)")
    return p


def _validate(args) -> float:
    threshold = args.threshold / 100
    if threshold < MIN_THRESHOLD:
        raise UserError(f"--threshold {args.threshold:g}: below {MIN_THRESHOLD:.4%}, finer than METG(50%) resolves "
                        "(docs/regression-gate.md, the metrics' resolution)", EXIT_USAGE)
    if args.json_format and not args.json:
        raise UserError(f"--json-format {args.json_format}: give --json FILE too", EXIT_USAGE)
    if args.width is not None and args.width <= 0:
        raise UserError(f"--width {args.width}: must be positive", EXIT_USAGE)
    if not (args.baseline_build or args.baseline_external or args.baseline or args.save_baseline):
        raise UserError("name a baseline: --baseline-build DIR, --baseline-external NAME=CORES:COMMAND or --baseline "
                        "FILE (or --save-baseline FILE to write one)", EXIT_USAGE)
    return threshold


def main(args, ctx) -> int:
    threshold = _validate(args)
    preset = QUICK if args.quick else FULL
    width = args.width or provenance.available_cores()
    stored = _read_baseline(args.baseline, ctx, args.allow_other_machine) if args.baseline else None
    pairs = _pairs(args, ctx, stored)
    name = campaign.new_name(ctx.store, "check", args.pattern)
    config = {"pattern": args.pattern, "width": width, "preset": "quick" if args.quick else "full",
              "metg": bool(args.metg), "pairs": pairs}
    ctx.store.claim(name)
    campaign.create(ctx.store, name, "check", {"systems": [s for pair in pairs for s in pair if s], **config},
                    ctx.git_revision)
    ctx.console.note(f"check {name}: {', '.join(_pair_text(c, b) for c, b in pairs)}; {args.pattern}, {width} wide, "
                     f"threshold {threshold:.0%}; stored in {ctx.store.path}")
    measure = _Measure(ctx, name, args.pattern, width, preset)
    cells = measure.all(pairs, args.metg, stored)
    _judge(cells, threshold)
    _extend(cells, threshold, measure, stored)
    _confirm(cells, threshold, measure, stored)
    ctx.store.finish_campaign(name)
    if args.save_baseline:
        _write_baseline(args.save_baseline, ctx, config, cells)
        ctx.console.note(f"baseline written: {args.save_baseline}")
    compared = [c for c in cells if c.baseline]
    if compared:
        title = (f"taskbench check: candidate vs baseline, {args.pattern}, {width} wide, threshold {threshold:.0%} "
                 f"(ratio candidate / baseline; smaller is better)")
        ctx.console.table(title, check_outputs.COLUMNS, check_outputs.rows(compared))
    if args.markdown:
        Path(args.markdown).write_text(check_outputs.markdown(compared, threshold, args.pattern, width))
    if args.json:
        document = check_outputs.json_document(cells, args.json_format or check_outputs.JSON_FORMATS[0])
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n")
    return _exit_status(ctx, compared)


def _pair_text(candidate: str, baseline: str | None) -> str:
    return f"{candidate} vs {baseline}" if baseline else candidate


def _pairs(args, ctx, stored: dict | None) -> list[tuple[str, str | None]]:
    """(candidate, baseline) system names; the baseline None where only the candidate is measured
    (--save-baseline alone) or where the file holds it (--baseline)."""
    registry = ctx.registry
    candidates = list(args.systems)
    if args.external:
        name = parse_spec(args.external)[0]
        add_externals(registry, externals_from_specs([args.external]))
        candidates.append(name)
    if args.baseline_external:
        if len(candidates) != 1:
            raise UserError("--baseline-external: name exactly one candidate system (or --external) to compare it "
                            "with", EXIT_USAGE)
        specs = externals_from_specs([args.baseline_external])
        add_externals(registry, specs)
        (baseline,) = specs
        return [(candidates[0], baseline)]
    if stored is not None:
        saved = list(dict.fromkeys(c["system"] for c in stored["cells"]))
        candidates = candidates or saved
        missing = [c for c in candidates if c not in saved]
        if missing:
            raise UserError(f"--baseline {args.baseline}: no figures of {', '.join(missing)} in it (it has "
                            f"{', '.join(saved)})", EXIT_USAGE)
    if not candidates:
        candidates = [s.name for s in registry.defaults() if s.available]
        if not candidates:
            raise UserError("no default system is available (see `taskbench systems`)", EXIT_USAGE)
    for name in candidates:
        registry.require_available(name)
    if not args.baseline_build:
        return [(c, None) for c in candidates]
    return [(c, _baseline_system(registry, args.baseline_build, c)) for c in candidates]


def _baseline_system(registry, build_dir: str, name: str) -> str:
    """The system `name` as the baseline build has it, added to the registry as NAME@baseline:
    this checkout's registry entry, the other build's binary."""
    layout = find_layout(build_dir)
    if layout.bin_dir is None:
        raise UserError(f"--baseline-build {build_dir}: no executables there (build it first)", EXIT_USAGE)
    other = Registry(layout).get(name)
    if not other.available:
        raise UserError(f"--baseline-build {build_dir}: {name} cannot run from it: {other.reason}", EXIT_USAGE)
    if other.binary_path == registry.get(name).binary_path:
        raise UserError(f"--baseline-build {build_dir}: the same binary as the candidate's ({other.binary_path}): "
                        "give another build", EXIT_USAGE)
    baseline = copy.copy(other)
    baseline.name = name + BASELINE_SUFFIX
    registry.systems[baseline.name] = baseline
    return baseline.name


class _Measure:
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
        if cell.metric == METG:
            self._metg(cell, both)
        else:
            self._grain(cell, both)

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

    def _grain(self, cell: Cell, both: bool) -> None:
        graph = [*self._graph(), *GRAIN_FLAGS[cell.metric]]
        flags = ["-steps", str(self._steps(cell.system, graph, self.preset.grain_seconds, cell.metric)), *graph]
        sides = [cell.system, cell.baseline] if both and cell.baseline else [cell.system]
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
                if len(sides) == 2:
                    cell.baseline_values.append(pair[cell.baseline])
        cell.paired = len(sides) == 2
        cell.noise = cell.noise or _busy(runs)

    def _metg(self, cell: Cell, both: bool) -> None:
        """METG per repetition on one grid of sizes for both sides (measure/metg_grid.py), found by a
        short pilot sweep; repetition k of both sides pairs."""
        sides = [cell.system, cell.baseline] if both and cell.baseline else [cell.system]
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
        values = {}
        for side in sides:
            points: dict[int, list] = {}
            for (name, iterations, rep), run in runs.items():
                if name == side:
                    eff = efficiency(throughput(run, KERNEL), peaks.peak_for(side, run.get("cores")))
                    points.setdefault(rep, []).append(metg_grid.curve_point(iterations, run, eff, disturbed(run)))
            values[side] = metg_grid.metg_per_repetition(points, THRESHOLD)
        reps = self.preset.metg_reps
        if len(sides) == 2:
            cell.baseline_values, cell.candidate_values = metg_grid.pairs(values[cell.baseline], values[cell.system])
            cell.paired = True
        else:
            cell.candidate_values = [v.seconds for v in values[cell.system].values() if metg_grid.clean(v)]
        unclean = [f"{side}: only {n} of {reps} repetitions cross 50% on the grid of "
                   f"{len(sizes)} sizes (-iter {sizes[-1]}-{sizes[0]})" for side in sides
                   if (n := sum(map(metg_grid.clean, values[side].values()))) < MIN_CLEAN_SHARE * reps]
        never = {side: sum(1 for v in values[side].values() if v.status == "none" and v.note.startswith("never reaches"))
                 for side in sides}
        cell.noise = "; ".join(unclean) or _busy(list(runs.values()))
        if len(sides) == 2:
            cell.categorical = _never_efficient(cell, never, {side: sum(map(metg_grid.clean, values[side].values()))
                                                              for side in sides}, reps)

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
            radix=None, threshold=THRESHOLD, reps=PILOT_REPS, tries=1, start_iter=START_ITER, refine_points=1,
            max_up=1, scratch=None, extra_flags=[], timeout=120, ranks=None, threads_per_rank=None, launcher=None,
            max_spread=0.10, hosts=None, target_interval=0.0)  # where to put the grid, not a METG to narrow
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


def _never_efficient(cell: Cell, never: dict[str, int], found: dict[str, int], reps: int) -> tuple[str, str] | None:
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


def _busy(runs: list[dict]) -> str:
    load = background_load(runs)
    if load is not None and load > DISTURBED_CORES:
        return (f"other processes used {load:.2f} cores during these runs (above {DISTURBED_CORES:g}): the machine "
                "was too busy to tell")
    return ""


def _judge(cells: list[Cell], threshold: float) -> None:
    compared = [c for c in cells if c.baseline]
    for cell in compared:
        cell.comparison = regression.compare(cell.baseline_values, cell.candidate_values, cell.paired)
    adjusted = regression.holm([c.comparison.p for c in compared])
    for cell, p in zip(compared, adjusted):
        cell.p_adjusted = p
        cell.verdict, cell.why = cell.categorical or regression.verdict(cell.comparison, p, threshold, cell.noise)


def _extend(cells: list[Cell], threshold: float, measure: _Measure, stored: dict | None) -> None:
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
        per_set, needed = len(cell.candidate_values), _repetitions_needed(cell.comparison, threshold)
        if needed is None or needed > MAX_SETS * per_set:
            left[i] = (f"; about {needed} repetitions would settle it, more than {MAX_SETS} sets of {per_set}"
                       if needed else "; its estimate lies on the threshold's edge")
            continue
        while len(cell.candidate_values) < needed and not cell.noise and cell.sets < MAX_SETS:
            more = Cell(cell.system, cell.baseline, cell.metric)
            measure.measure(more, stored is None)
            cell.noise = more.noise
            cell.candidate_values += more.candidate_values
            if stored is None:
                cell.baseline_values += more.baseline_values
            cell.sets += 1
    if any(c.sets > 1 for c in wide):
        _judge(cells, threshold)
    for i, cell in enumerate(wide):
        cell.why += left.get(i, f" ({len(cell.candidate_values)} repetitions in {cell.sets} sets)")


def _repetitions_needed(c: regression.Comparison, threshold: float) -> int | None:
    """Repetitions after which an interval as wide as this one, narrowing as 1/sqrt(n), would
    clear the threshold's band edge nearest its estimate (with a 20% margin); None where the
    estimate lies on that edge: within a tenth of the interval's half-width of it (more than 120
    times the repetitions: a count that says nothing, as the estimate itself moves that much)."""
    half = (math.log(c.high) - math.log(c.low)) / 2
    room = abs(abs(math.log(c.ratio)) - math.log1p(threshold))
    if room < 1e-9 or room < half / 10:
        return None
    return math.ceil(1.2 * len(c.candidate) * (half / room) ** 2)


def _confirm(cells: list[Cell], threshold: float, measure: _Measure, stored: dict | None) -> None:
    """A cell judged regressed or improved is measured once more; the verdict stands only if the
    new repetitions alone (one comparison: no correction) say the same."""
    for cell in cells:
        if cell.verdict not in (regression.REGRESSED, regression.IMPROVED):
            continue
        first = cell.verdict
        again = Cell(cell.system, cell.baseline, cell.metric,
                     baseline_values=list(cell.baseline_values) if stored is not None else [])
        measure.measure(again, stored is None)
        comparison = regression.compare(again.baseline_values, again.candidate_values, again.paired)
        verdict, why = again.categorical or regression.verdict(comparison, comparison.p, threshold, again.noise)
        if verdict == first:
            cell.why += "; confirmed by a second measurement" + (f" ({comparison.ratio:.3f}x)" if comparison.ratio else "")
        else:
            cell.verdict = regression.INCONCLUSIVE
            cell.why = f"{first} at first ({cell.why}), but a second measurement said {verdict} ({why})"


def _exit_status(ctx, cells: list[Cell]) -> int:
    regressed = [c for c in cells if c.verdict == regression.REGRESSED]
    inconclusive = [c for c in cells if c.verdict == regression.INCONCLUSIVE]
    for c in regressed:
        ctx.console.warn(f"REGRESSED: {c.system}, {c.metric}: {c.why}")
    if regressed:
        return EXIT_REGRESSED
    if inconclusive:
        ctx.console.warn(f"inconclusive: {', '.join(f'{c.system} ({c.metric})' for c in inconclusive)}: "
                         f"exit status {EXIT_UNRELIABLE} (docs/regression-gate.md, Inconclusive)")
        return EXIT_UNRELIABLE
    return EXIT_OK


def _machine_facts(ctx) -> dict:
    machine = provenance.machine()
    info = ctx.layout.build_info
    return {"machine_id": provenance.machine_id(machine), "machine": machine,
            "build": {"git_revision": ctx.git_revision, "build_type": info.get("build_type"),
                      "sanitize": info.get("sanitize")}}


def _write_baseline(path: str, ctx, config: dict, cells: list[Cell]) -> None:
    document = {"taskbench_check_baseline": BASELINE_FORMAT, **_machine_facts(ctx),
                "config": {k: v for k, v in config.items() if k != "pairs"},
                "cells": [{"system": c.system, "metric": c.metric, "values": c.candidate_values} for c in cells]}
    Path(path).write_text(json.dumps(document, indent=2) + "\n")


def _read_baseline(path: str, ctx, allow_other_machine: bool) -> dict:
    try:
        document = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"--baseline {path}: cannot read it ({exc})", EXIT_USAGE)
    if not isinstance(document, dict) or document.get("taskbench_check_baseline") != BASELINE_FORMAT:
        raise UserError(f"--baseline {path}: not a baseline of this version (write one with --save-baseline)",
                        EXIT_USAGE)
    here = _machine_facts(ctx)
    differs = [what for what, theirs, ours in (
        ("machine", document.get("machine_id"), here["machine_id"]),
        ("build type", (document.get("build") or {}).get("build_type"), here["build"]["build_type"]),
        ("sanitizers", (document.get("build") or {}).get("sanitize"), here["build"]["sanitize"])) if theirs != ours]
    if differs and not allow_other_machine:
        raise UserError(f"--baseline {path}: written on another {' and '.join(differs)} "
                        f"({document.get('machine_id')}); its figures do not compare with this one's "
                        "(--allow-other-machine compares anyway)", EXIT_USAGE)
    return document
