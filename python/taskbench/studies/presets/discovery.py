"""Study `discovery`: how long creating the task graph takes, per task, against running it.

Paper: ../shared/papers/openmp-tdg-discovery-icpp23.txt. Discovery = the time the single
producer thread spends creating tasks; once tasks are fine enough, execution is bound by it
(Fig. 1-2). A persistent graph, built once and replayed, cut discovery up to 15x (Table 2:
55.6 s -> 6.0 s on LULESH).

Here: stencil_1d, compute_bound at three task sizes, for the systems that discover the graph as
they run (registry role "discovered": openmp_task / openmp_task_llvm, a task created per point
and timestep, their own `system_report.discovery`; native_dynamic, tbrt tasks created per
timestep by one thread, `-breakdown`) and the one whose graph is persistent (role "persistent":
native, the graph built once and replayed, `-breakdown`). Per task: discovery ns, the run's task
granularity (elapsed x cores / tasks), and discovery's share of the elapsed time.

Shape (full): 1000 steps x 8 points (8000 tasks, enough to average creation costs), -iter
256 / 2048 / 16384: tasks of ~0.7 us (overhead-bound), ~5 us and ~60 us on this machine, up to
0.3 s a run.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import plots, units
from taskbench.measure.system_report import breakdown_of, discovery_of
from taskbench.studies.preset import GridRun, Study, rep_major
from taskbench.studies.results import StudyResult, cell

# Their roles (registry key `studies`), in table order: the persistent graph, built once and
# replayed, is what every other system's discovery is compared with.
ROLES = ("discovered", "persistent")
NO_DISCOVERY = "no discovery figure in the report"


@dataclass(frozen=True)
class Shape:
    steps: int
    width: int
    iterations: tuple[int, ...]


FULL = Shape(steps=1000, width=8, iterations=(1 << 8, 1 << 11, 1 << 14))
QUICK = Shape(steps=20, width=4, iterations=(1 << 6, 1 << 10))


def flags(shape: Shape, point: dict) -> list[str]:
    return ["-steps", str(shape.steps), "-width", str(shape.width), "-type", "stencil_1d",
            "-kernel", "compute_bound", "-iter", str(point["iter"])]


def grid(systems: list[str], quick: bool, reps: int) -> list[GridRun]:
    shape = QUICK if quick else FULL
    points = [{"iter": it} for it in shape.iterations]
    return rep_major(points, systems, reps, lambda point: flags(shape, point), breakdown=True)


def per_task(run: dict | None) -> dict | None:
    """Discovery and execution per task of one run, or None without a discovery figure."""
    if cell(run):
        return None
    found = discovery_of(run)
    if found is None or not run.get("elapsed_seconds") or run.get("granularity_seconds") is None:
        return None
    return {"discovery_ns": found.ns_per_task, "granularity_ns": 1e9 * run["granularity_seconds"],
            "share": found.seconds / run["elapsed_seconds"], "source": found.source}


def table(result: StudyResult, figures=units.READABLE) -> tuple[list[str], list[list]]:
    """figures: units.Figures, raw for -q."""
    persistent_system = result.member("persistent")
    columns = ["-iter", "system", "task granularity", "discovery per task", "discovery / elapsed",
               f"discovery vs {persistent_system or 'a persistent graph'}", "work / overhead / idle per task",
               "notes"]
    rows = []
    for it in result.axis("iter"):
        persistent = per_task(result.best(persistent_system, {"iter": it}))
        for system in result.systems:
            if system in result.unavailable:
                rows.append([it, system, f"not available: {result.unavailable[system]}"] + [""] * 5)
                continue
            run = result.best(system, {"iter": it})
            cost = per_task(run)
            parts = breakdown_of(run) if not cell(run) else None
            split = "/".join(f"{parts[p]:.0f}" for p in ("work", "overhead", "idle")) + " ns" if parts else "—"
            note = result.no_breakdown.get(system, "")
            if cost is None:
                why = cell(run) or NO_DISCOVERY
                rows.append([it, system, _granularity(run, figures), why, "", "", split, note])
                continue
            ratio = (figures.number(cost["discovery_ns"] / persistent["discovery_ns"], ".1f", "x")
                     if persistent and persistent["discovery_ns"] > 0 else "—")
            rows.append([it, system, _granularity(run, figures), figures.seconds(cost["discovery_ns"] / 1e9),
                         figures.percent(cost["share"]), ratio, split, note])
    return columns, rows


def _granularity(run: dict | None, figures):
    if cell(run) or run.get("granularity_seconds") is None:
        return ""
    return figures.seconds(run["granularity_seconds"])


def findings(result: StudyResult) -> list[str]:
    """The paper's claim, checked: how much less discovery per task the persistent graph costs."""
    lines = []
    persistent_system = result.member("persistent")
    for it in result.axis("iter"):
        persistent = per_task(result.best(persistent_system, {"iter": it}))
        if persistent is None or persistent["discovery_ns"] <= 0:
            continue
        for system in result.systems:
            if system == persistent_system or system in result.unavailable:
                continue
            figures = per_task(result.best(system, {"iter": it}))
            if figures is None:
                lines.append(f"-iter {it}: {system}: {NO_DISCOVERY}")
                continue
            lines.append(f"-iter {it}: {system} spends {figures['discovery_ns'] / persistent['discovery_ns']:.1f}x "
                         f"the discovery time per task of {persistent_system} (persistent graph; the paper: "
                         "up to 15x)")
    return lines


def figure(result: StudyResult):
    return plots.discovery_per_task(result, result.axis("iter"), per_task)


STUDY = Study(
    name="discovery",
    title="Task-graph discovery vs execution per task",
    paper=('Pereira et al., "Investigating Dependency Graph Discovery Impact on Task-based MPI+OpenMP '
           'Applications Performances", ICPP 2023: a persistent graph cuts discovery overhead up to 15x'),
    roles=ROLES, reps=5, quick_reps=1, breakdown=True,
    grid=grid, table=table, findings=findings, figure=figure)
