"""Study `imbalance`: tasks against worksharing loops under load imbalance.

Paper: ../shared/papers/benefits-of-tasking-openmp.txt (taskified miniAMR): tasks 15-30% faster
than statically scheduled loops for some thread counts, from load balancing and from no barrier
between phases; dynamic loop schedules narrow the gap.

Here: Task Bench's load_imbalance kernel, whose task t,i runs (1 + (u - 0.5) x imbalance) x -iter
iterations, u uniform in [0, 1) from a hash (the same durations on every system), at imbalance
0, 0.5, 1, 2, on stencil_1d and nearest (radix 5). Each system's time is compared with its own balanced
run (time per unit of work, since the draws change the total slightly) and with the statically
scheduled loop (registry role "static_loop": openmp_for) at the same imbalance (the same work).

Shape (full): 8 points wide on this 2-core machine, 4 points per core, so that a static
schedule's per-thread sums differ visibly (wider rows average the imbalance out: at imbalance 2
a static row then costs ~16% more, the most any scheduler can win back); -iter 65536, tasks of
0.2-0.35 ms balanced on this machine (the paper's blocks take 0.1-1 ms); 300 steps: 0.25-0.5 s
a run.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import plots, units
from taskbench.reference import published
from taskbench.studies.preset import GridRun, Study, paper_systems, rep_major
from taskbench.studies.results import StudyResult, cell

IMBALANCES = (0.0, 0.5, 1.0, 2.0)
PATTERNS = ("stencil_1d", "nearest")
# nearest with its default radix 3 has stencil_1d's dependencies; radix 5 gives two more inputs
# per task (the pattern the METG preset also measures).
PATTERN_FLAGS = {"stencil_1d": (), "nearest": ("-radix", "5")}
# Their roles (registry key `studies`), in table order: the paper's baseline, a statically
# scheduled worksharing loop; loops with a dynamic schedule; tasks; anything else compared.
ROLES = ("static_loop", "dynamic_loop", "tasks", "compared")
# The findings check the paper's claim for these, tasks first.
CHECKED_ROLES = ("tasks", "dynamic_loop")


@dataclass(frozen=True)
class Shape:
    steps: int
    width: int
    iterations: int
    imbalances: tuple[float, ...]


FULL = Shape(steps=300, width=8, iterations=1 << 16, imbalances=IMBALANCES)
# Quick is 5 wide: the core refuses a radix above the width (nearest radix 5 needs 5 points).
QUICK = Shape(steps=6, width=5, iterations=1 << 10, imbalances=(0.0, 2.0))


def flags(shape: Shape, point: dict) -> list[str]:
    return ["-steps", str(shape.steps), "-width", str(shape.width), "-type", point["pattern"],
            *PATTERN_FLAGS[point["pattern"]], "-kernel", "load_imbalance", "-iter", str(shape.iterations),
            "-imbalance", f"{point['imbalance']:g}"]


def label(pattern: str) -> str:
    return " ".join([pattern, *PATTERN_FLAGS[pattern]]).replace("-radix", "radix")


def grid(systems: list[str], quick: bool, reps: int) -> list[GridRun]:
    shape = QUICK if quick else FULL
    points = [{"pattern": p, "imbalance": x} for p in PATTERNS for x in shape.imbalances]
    return rep_major(points, systems, reps, lambda point: flags(shape, point), breakdown=False)


def _time_per_work(run: dict) -> float:
    return run["elapsed_seconds"] / run["flops"]


def relative_to_balanced(run: dict | None, balanced: dict | None) -> float | None:
    """Time per unit of work relative to the same system's balanced run (1.0: imbalance cost
    nothing); None when either run has no figure."""
    if cell(run) or cell(balanced) or not run.get("flops") or not balanced.get("flops"):
        return None
    return _time_per_work(run) / _time_per_work(balanced)


def relative_to_static(run: dict | None, static: dict | None) -> float | None:
    """Time relative to the static loop's at the same point (the same work): below 1 is faster."""
    if cell(run) or cell(static):
        return None
    return run["elapsed_seconds"] / static["elapsed_seconds"]


def table(result: StudyResult, figures=units.READABLE) -> tuple[list[str], list[list]]:
    """figures: units.Figures, raw for -q."""
    levels = result.axis("imbalance")
    top = max(levels)
    static_loop = result.member("static_loop")
    columns = (["pattern", "system", "balanced time"] + [f"x{x:g} vs balanced" for x in levels if x]
               + [f"vs {static_loop or 'a static loop'} at {top:g}"])
    rows = []
    for pattern in PATTERNS:
        if pattern not in result.axis("pattern"):
            continue
        for system in result.systems:
            if system in result.unavailable:
                rows.append([label(pattern), system, f"not available: {result.unavailable[system]}"]
                            + [""] * (len(columns) - 3))
                continue
            best = {x: result.best(system, {"pattern": pattern, "imbalance": x}) for x in levels}
            balanced = best[levels[0]]
            row = [label(pattern), system, cell(balanced) or figures.seconds(balanced["elapsed_seconds"])]
            for x in levels[1:]:
                value = relative_to_balanced(best[x], balanced)
                row.append(figures.number(value, ".3f") if value is not None else cell(best[x]) or cell(balanced))
            static = result.best(static_loop, {"pattern": pattern, "imbalance": top})
            value = relative_to_static(best[top], static)
            row.append(figures.number(value, ".3f") if value is not None else "—")
            rows.append(row)
    return columns, rows


def findings(result: StudyResult) -> list[str]:
    """The paper's claim, checked: tasks vs the static loop at the largest imbalance."""
    top = max(result.axis("imbalance"))
    static_loop = result.member("static_loop")
    checked = [(system, role) for role in CHECKED_ROLES for system in result.requested(role)]
    lines = []
    for pattern in PATTERNS:
        static = result.best(static_loop, {"pattern": pattern, "imbalance": top})
        for system, role in checked:
            if system in result.unavailable:
                continue
            value = relative_to_static(result.best(system, {"pattern": pattern, "imbalance": top}), static)
            if value is None:
                continue
            verdict = "less" if value < 1 else "more"
            paper = "; the paper: tasks take 0.70-0.85x" if role == "tasks" else ""
            lines.append(f"{label(pattern)}, imbalance {top:g}: {system} takes {value:.2f}x the time of {static_loop} "
                         f"(static), {abs(1 - value):.0%} {verdict}{paper}")
    return lines


def figure(result: StudyResult):
    # The SC20 paper's Fig. 12 is of nearest with 5 dependencies per task (4 graphs, one node).
    paper = {"nearest": published.imbalance_cost(result.axis("imbalance"), shown=paper_systems(result))}
    return plots.imbalance_cost(result, PATTERNS, relative_to_balanced, label, paper)


STUDY = Study(
    name="imbalance",
    title="Tasks vs worksharing loops under load imbalance",
    paper='Rico et al., "On the Benefits of Tasking with OpenMP", IWOMP 2019: tasks 15-30% faster than '
          "static loops under imbalance",
    roles=ROLES, reps=5, quick_reps=1, breakdown=False,
    grid=grid, table=table, findings=findings, figure=figure)
