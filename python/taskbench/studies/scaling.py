"""Study `scaling`: weak and strong scaling over the cores (threads, or MPI ranks) available.

Paper: ../shared/papers/task-bench-sc20.txt, Fig. 4 (MPI weak scaling, problem size per node
fixed, stencil) and Fig. 5 (MPI strong scaling, total problem fixed), and Fig. 14 (strong scaling
stops where the task granularity reaches METG). Nodes there, cores here: the paper's one-node
machine is our whole machine.

Here: stencil_1d, compute_bound, at a small and a large task size (-iter), on 1, 2, 4, ... cores
up to the cores available. Weak: one column per core (width = cores), so the work per core is
constant and ideal is a flat time. Strong: width = the cores available at every core count, so
the total work is constant and ideal is time ~ 1/cores. Serial (one core by construction) is
left out. Efficiency: weak t(1)/t(c), strong t(1)/(c x t(c)).
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import provenance, units
from taskbench.studies.preset import PlannedRun, Study
from taskbench.studies.results import StudyResult, cell
from taskbench.studies.taskbench_paper import TASK_BENCH

SYSTEMS = ("native", "native_dynamic", "openmp_for", "openmp_task", "mpi_p2p")
MODES = ("weak", "strong")


@dataclass(frozen=True)
class Shape:
    steps: int
    iterations: tuple[int, ...]  # a fine and a coarse task size


# Quick keeps the full run's 1000 timesteps (runs of 2 ms to 0.4 s: shorter ones measure thread
# start-up) and fewer sizes and repetitions.
FULL = Shape(steps=1000, iterations=(1 << 10, 1 << 13, 1 << 16))
QUICK = Shape(steps=1000, iterations=(1 << 10, 1 << 16))


def core_counts(available: int) -> list[int]:
    """1, 2, 4, ... up to the cores available, which is always included."""
    counts, c = [], 1
    while c < available:
        counts.append(c)
        c *= 2
    return counts + [available]


def flags(shape: Shape, point: dict, available: int) -> list[str]:
    width = point["cores"] if point["mode"] == "weak" else available
    return ["-steps", str(shape.steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "compute_bound",
            "-iter", str(point["iter"])]


def grid(systems: list[str], quick: bool, reps: int, available: int | None = None) -> list[PlannedRun]:
    shape = QUICK if quick else FULL
    available = available or provenance.available_cores()
    points = [{"mode": m, "iter": it, "cores": c} for m in MODES for it in shape.iterations
              for c in core_counts(available)]
    return [PlannedRun(system, point, rep, tuple(flags(shape, point, available)), False, point["cores"])
            for rep in range(reps) for point in points for system in systems]


def efficiency(mode: str, cores: int, one: dict | None, run: dict | None) -> float | None:
    if cell(one) or cell(run):
        return None
    speedup = one["elapsed_seconds"] / run["elapsed_seconds"]
    return speedup if mode == "weak" else speedup / cores


def _axis(result: StudyResult) -> tuple[list[int], list[int]]:
    points = result.points()
    return sorted({p["iter"] for p in points}), sorted({p["cores"] for p in points})


def table(result: StudyResult) -> tuple[list[str], list[list]]:
    iterations, counts = _axis(result)
    columns = (["mode", "-iter", "system"] + [f"time on {units.count(c, 'core')}" for c in counts]
               + [f"efficiency on {c}" for c in counts[1:]])
    rows = []
    for mode in MODES:
        for it in iterations:
            for system in result.systems:
                if system in result.unavailable:
                    rows.append([mode, it, system, f"not available: {result.unavailable[system]}"]
                                + [""] * (len(columns) - 4))
                    continue
                best = {c: result.best(system, {"mode": mode, "iter": it, "cores": c}) for c in counts}
                times = [cell(best[c]) or units.seconds(best[c]["elapsed_seconds"]) for c in counts]
                effs = [efficiency(mode, c, best[counts[0]], best[c]) for c in counts[1:]]
                rows.append([mode, it, system, *times, *[f"{e:.0%}" if e is not None else "—" for e in effs]])
    return columns, rows


def findings(result: StudyResult) -> list[str]:
    iterations, counts = _axis(result)
    if len(counts) < 2:
        return ["one core available: nothing to scale over"]
    lines = []
    top = counts[-1]
    for mode in MODES:
        for system in result.systems:
            if system in result.unavailable:
                continue
            effs = []
            for it in iterations:
                one = result.best(system, {"mode": mode, "iter": it, "cores": counts[0]})
                many = result.best(system, {"mode": mode, "iter": it, "cores": top})
                effs.append(efficiency(mode, top, one, many))
            if all(e is not None for e in effs):
                text = ", ".join(f"{e:.0%} at -iter {it}" for it, e in zip(iterations, effs))
                lines.append(f"{mode} scaling to {top} cores, {system}: {text}")
    return lines


def figure(result: StudyResult):
    from taskbench.studies import figures
    return figures.scaling(result, MODES, _axis(result))


STUDY = Study(
    name="scaling",
    title="Weak and strong scaling over the cores available (paper Fig. 4, 5)",
    paper=f"{TASK_BENCH}, Figs. 4 and 5: scaling holds while the task granularity stays above METG "
          "(Fig. 14)",
    systems=SYSTEMS, reps=5, quick_reps=3, breakdown=False,
    grid=grid, table=table, findings=findings, figure=figure)
