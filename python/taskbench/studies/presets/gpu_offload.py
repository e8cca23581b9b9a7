"""Study `gpu_offload`: FLOP/s against problem size on the GPU and on the CPU's cores.

Paper: ../shared/papers/task-bench-sc20.txt, Fig. 13 (GPU FLOP/s vs normalized problem size,
stencil, one node) and section V-H: MPI+CUDA offloads with data copied to and from the GPU every
step; w1 runs 1 rank per GPU, w4 4 ranks sharing it (higher FLOP/s, but it drops faster at small
sizes: 4x the kernel launches). GPUs need more work per task to reach their FLOP/s: at small
sizes the copies and launches dominate and the CPU (MPI) does better.

Here: stencil_1d, compute_bound, -iter over a geometric range, for the CPU reference (registry
role "reference": mpi_p2p) on all the cores (a rank per core), the paper's w1 and w4 (roles "w1",
"w4": mpi_cuda and mpi_cuda_w4) at their registry ranks, and the other GPU systems (role "gpu":
cuda_graph and cuda); every system gets the same graph, width = the cores available (16 on the
16-core GPU machine).
The same -iter is the same FLOPs for every system, so the normalized size is -iter over the
largest -iter of the grid. FLOP/s per run is the stored report's (flops / elapsed).

Shape (full): 1000 steps, -iter 2^4 .. 2^20 (17 sizes, doubling: enough points to place each
line's 50% size), best of 3. On the 2-core VM mpi_p2p alone took 1 min 21 s (51 runs, 8 retries);
with the GPU systems on the 16-core GPU machine a few minutes (estimated, not measured). Quick:
100 steps, -iter 2^4, 2^8, 2^12, 2^16.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import plots, provenance, units
from taskbench.reference import published
from taskbench.registry import registry_entries
from taskbench.studies.preset import GridRun, Study
from taskbench.studies.results import StudyResult, cell
from taskbench.studies.presets.taskbench_paper import TASK_BENCH

# Their roles (registry key `studies`), in table order: the CPU line of Fig. 13 every GPU
# system's best is compared with; MPI+CUDA with 1 and with 4 ranks per GPU (the paper's w1 and
# w4, whose lines it compares); the other GPU systems.
ROLES = ("reference", "w1", "w4", "gpu")
HALF = 0.5  # the share of its own best FLOP/s a system's "reaches" size is measured at
UNIT = "FLOP/s"


@dataclass(frozen=True)
class Shape:
    steps: int
    iterations: tuple[int, ...]


FULL = Shape(steps=1000, iterations=tuple(1 << k for k in range(4, 21)))
QUICK = Shape(steps=100, iterations=(1 << 4, 1 << 8, 1 << 12, 1 << 16))


def flags(shape: Shape, width: int, iterations: int) -> list[str]:
    return ["-steps", str(shape.steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "compute_bound",
            "-iter", str(iterations)]


def on_the_gpu(system: str) -> bool:
    """A GPU entry runs at the ranks its registry entry fixes (the paper's ranks per GPU: w1 1,
    w4 4), not a rank per core: a planned run's cores would override them."""
    entry = registry_entries().get(system)
    return entry is not None and entry.processor == "gpu"


def grid(systems: list[str], quick: bool, reps: int, available: int | None = None) -> list[GridRun]:
    shape = QUICK if quick else FULL
    width = available or provenance.available_cores()
    return [GridRun(system, {"iter": it}, rep, tuple(flags(shape, width, it)), False,
                    None if on_the_gpu(system) else width)
            for rep in range(reps) for it in shape.iterations for system in systems]


def flops_per_second(run: dict | None) -> float | None:
    if cell(run) or run.get("flops_per_second") is None:
        return None
    return float(run["flops_per_second"])


@dataclass(frozen=True)
class Point:
    iterations: int
    normalized: float  # -iter / the grid's largest -iter
    run: dict | None  # the fastest repetition, or the failure that explains the missing figure
    flops_per_second: float | None


def curve(result: StudyResult, system: str) -> list[Point]:
    """The system's points in -iter order, each its fastest repetition's FLOP/s."""
    iterations = result.axis("iter")
    points = []
    for it in iterations:
        run = result.best(system, {"iter": it})
        points.append(Point(it, it / iterations[-1], run, flops_per_second(run)))
    return points


def best(points: list[Point]) -> Point | None:
    measured = [p for p in points if p.flops_per_second is not None]
    return max(measured, key=lambda p: p.flops_per_second) if measured else None


def reaches_half(points: list[Point]) -> Point | None:
    """The smallest size whose FLOP/s is at least half the system's own best, or None."""
    top = best(points)
    if top is None:
        return None
    return next(p for p in points if p.flops_per_second is not None
                and p.flops_per_second >= HALF * top.flops_per_second)


def _norm(value: float) -> str:
    return f"{value:.3g}"


def table(result: StudyResult, figures=units.READABLE) -> tuple[list[str], list[list]]:
    """figures: units.Figures, raw for -q."""
    reference_system = result.member("reference")
    columns = ["system", "-iter", "normalized size", UNIT, "of its best", f"vs {reference_system or 'the CPU'}"]
    reference = {p.iterations: p.flops_per_second for p in curve(result, reference_system)}
    rows = []
    for system in result.systems:
        if system in result.unavailable:
            rows.append([system, "", "", f"not available: {result.unavailable[system]}", "", ""])
            continue
        points = curve(result, system)
        top = best(points)
        for p in points:
            if p.flops_per_second is None:
                rows.append([system, p.iterations, figures.number(p.normalized, ".3g"),
                             cell(p.run) or "no FLOP/s in the report", "", ""])
                continue
            cpu = reference.get(p.iterations)
            rows.append([system, p.iterations, figures.number(p.normalized, ".3g"),
                         figures.rate(p.flops_per_second, UNIT),
                         figures.percent(p.flops_per_second / top.flops_per_second),
                         figures.number(p.flops_per_second / cpu, ".2f", "x") if cpu else "—"])
    return columns, rows


def _why_no_figure(points: list[Point]) -> str:
    return next((cell(p.run) for p in points if p.run is not None and cell(p.run)), "not run yet")


def findings(result: StudyResult) -> list[str]:
    """Per system: its best FLOP/s, the smallest normalized size reaching half of it, and, for the
    GPU systems, their best against the CPU reference's (the paper: GPUs peak higher but need
    more work)."""
    lines = []
    reference_system = result.member("reference")
    reference_best = best(curve(result, reference_system))
    # The reference first: the GPU lines compare with it.
    for system in sorted(result.systems, key=lambda s: s != reference_system):
        if system in result.unavailable:
            lines.append(f"{system}: not available here, no figures: {result.unavailable[system]}")
            continue
        points = curve(result, system)
        top, half = best(points), reaches_half(points)
        if top is None:
            lines.append(f"{system}: no {UNIT} figure at any size ({_why_no_figure(points)})")
            continue
        text = (f"{system}: best {units.rate(top.flops_per_second, UNIT)} at -iter {top.iterations}; "
                f"{HALF:.0%} of it from normalized size {_norm(half.normalized)} (-iter {half.iterations})")
        if system != reference_system:
            if reference_best is not None:
                text += (f"; its best is {top.flops_per_second / reference_best.flops_per_second:.2f}x "
                         f"{reference_system}'s ({units.rate(reference_best.flops_per_second, UNIT)})")
            else:
                text += f"; no {reference_system or 'CPU reference'} figure to compare with"
        lines.append(text)
    return lines + _w4_vs_w1(result)


def _w4_vs_w1(result: StudyResult) -> list[str]:
    """The paper's w4 claim, checked: a higher best than w1, reached only at larger sizes."""
    w1_system, w4_system = result.member("w1"), result.member("w4")
    w1, w4 = curve(result, w1_system), curve(result, w4_system)
    if best(w1) is None or best(w4) is None:
        return []
    ratio = best(w4).flops_per_second / best(w1).flops_per_second
    return [f"{w4_system} (4 ranks per GPU) vs {w1_system} (1): best {ratio:.2f}x; {HALF:.0%} of its own best "
            f"from normalized size {_norm(reaches_half(w4).normalized)} against {_norm(reaches_half(w1).normalized)} "
            "(the paper: w4 peaks higher and drops faster at small sizes)"]


def figure(result: StudyResult):
    """Fig. 13: FLOP/s vs normalized problem size, a line per system; the systems without a
    figure are named under the title."""
    curves: dict[str, list[tuple[float, float]]] = {}
    missing: dict[str, list[str]] = {}
    for system in result.systems:
        points = [] if system in result.unavailable else [
            (p.normalized, p.flops_per_second) for p in curve(result, system) if p.flops_per_second is not None]
        curves[system] = points  # every system, so that each keeps its line style (its place)
        if not points:
            missing.setdefault("not available here" if system in result.unavailable else "no run succeeded",
                               []).append(system)
    return plots.flops_vs_normalized_size(result.name, curves, missing, published.gpu_curves("stencil_1d"),
                                          published.label("cuda_compute"), UNIT)


STUDY = Study(
    name="gpu_offload",
    title="FLOP/s vs normalized problem size: MPI on the cores, MPI+CUDA and CUDA on the GPU (paper Fig. 13)",
    paper=f"{TASK_BENCH}, Fig. 13: GPUs peak higher than the CPU but need larger problems; MPI+CUDA w4 "
          "peaks above w1 and drops faster at small sizes",
    roles=ROLES, reps=3, quick_reps=1, breakdown=False,
    grid=grid, table=table, findings=findings, figure=figure)
