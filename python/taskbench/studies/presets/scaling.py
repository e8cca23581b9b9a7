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

Then METG vs cores (the paper's Fig. 9a, METG of stencil vs nodes, over one node's cores): a
METG sweep per core count C (studies/metg_preset.py), stencil_1d, width = C, every run on C
cores (C MPI ranks, or C threads). Each sweep is a campaign of its own, so the peak its
efficiencies use comes from C-core runs only (measure/peak/table.py: its own runs or stored
`taskbench peak` runs at C cores), and it records the no-runtime floor of its graph at C workers
(measure/placement.floor, bench/exchange_floor.cc), drawn and tabled beside the systems. One
worker exchanges nothing: there is no floor at C = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import plots, provenance, units
from taskbench.hosts.description import first_hosts
from taskbench.hosts.facts import described
from taskbench.reference import published
from taskbench.studies.metg_preset import MetgStudy, Sweep
from taskbench.studies.metg_results import series
from taskbench.studies.preset import GridRun, Study, members, paper_systems
from taskbench.studies.results import StudyResult, cell
from taskbench.studies.presets.taskbench_paper import TASK_BENCH

NAME = "scaling"
# One role (registry key `studies`): every system it compares scales alike.
ROLES = ("compared",)
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
    """1, 2, 4, ... up to the cores (or, across hosts, the hosts) available, which is always included."""
    counts, c = [], 1
    while c < available:
        counts.append(c)
        c *= 2
    return counts + [available]


def flags(shape: Shape, point: dict, available: int) -> list[str]:
    width = point["cores"] if point["mode"] == "weak" else available
    return ["-steps", str(shape.steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "compute_bound",
            "-iter", str(point["iter"])]


def grid(systems: list[str], quick: bool, reps: int, available: int | None = None) -> list[GridRun]:
    shape = QUICK if quick else FULL
    available = available or provenance.available_cores()
    points = [{"mode": m, "iter": it, "cores": c} for m in MODES for it in shape.iterations
              for c in core_counts(available)]
    return [GridRun(system, point, rep, tuple(flags(shape, point, available)), False, point["cores"])
            for rep in range(reps) for point in points for system in systems]


def hosts_grid(systems: list[str], quick: bool, reps: int, cluster) -> list[GridRun]:
    """--hosts: the same runs over the first 1, 2, 4, ... N hosts, every core of each busy (the
    paper's nodes). Weak: one column per core of the hosts used; strong: one per core of all N."""
    shape = QUICK if quick else FULL
    used = {n: sum(h.cores for h in cluster.hosts[:n]) for n in core_counts(len(cluster))}
    points = [({"mode": m, "iter": it, "cores": used[n]}, n) for m in MODES for it in shape.iterations for n in used]
    return [GridRun(system, point, rep, tuple(flags(shape, point, cluster.cores)), False, point["cores"], n)
            for rep in range(reps) for point, n in points for system in systems]


def hosts_metg_sweeps(quick: bool, cluster) -> list[Sweep]:
    """--hosts: a stencil_1d sweep over the first N hosts for each N, a column per core of them."""
    sweeps = []
    for n in core_counts(len(cluster)):
        hosts = first_hosts(cluster, n)
        sweeps.append(Sweep(hosts.cores, f"hosts{n}", {"pattern": "stencil_1d", "width": hosts.cores,
                                                       "cluster": hosts, "host_facts": described(hosts)}))
    return sweeps


def metg_sweeps(quick: bool, cores: int) -> list[Sweep]:
    """A stencil_1d sweep per core count C: width C (a column per core), every run on C cores."""
    return [Sweep(c, f"cores{c}", {"pattern": "stencil_1d", "width": c, "cores": c}) for c in core_counts(cores)]


METG = MetgStudy(
    name=NAME, title="METG(50%) vs cores, stencil_1d, width = cores", figure_number="Fig. 9a",
    paper=f"{TASK_BENCH}, Fig. 9a: METG of stencil vs nodes, here vs the cores of one node",
    parameter="cores", default_systems=lambda registry: members(NAME, ROLES, registry), sweeps=metg_sweeps)

METG_LABEL = "METG(50%)"
FLOOR = "no-runtime floor"


def floor_at(result: StudyResult, label: str) -> dict | None:
    """The no-runtime floor a C-core sweep recorded (placement.floor), or None."""
    for analysis in result.metg.analyses.get(label, []) if result.metg else []:
        found = (analysis.campaign.get("machine") or {}).get("no_runtime_floor")
        if found:
            return found
    return None


def metg_points(result: StudyResult) -> dict[str, list[tuple[int, float]]]:
    """(cores, METG seconds) per system where its C-core sweep found one: the figure's lines."""
    if result.metg is None:
        return {}
    return {system: [(c, m.seconds) for c, m in series(result.metg, system)] for system in result.systems}


def floor_points(result: StudyResult) -> list[tuple[int, float]]:
    """(cores, the floor's METG(50%) lower bound) at each core count that recorded one."""
    if result.metg is None:
        return []
    found = [(c, floor_at(result, label)) for c, label in result.metg.values()]
    return [(c, f["metg_lower_bound_seconds"]) for c, f in found if f]


def times_floor(seconds: float, found: dict | None) -> str:
    """A METG as a multiple of the floor's METG(50%), "" without a floor."""
    return f"{seconds / found['metg_lower_bound_seconds']:.1f}x" if found else ""


def _floor_cell(result: StudyResult, cores: int, label: str) -> str:
    found = floor_at(result, label)
    if found:
        return units.seconds(found["metg_lower_bound_seconds"])
    return "— (one worker exchanges nothing)" if cores == 1 else "not recorded"


def metg_rows(result: StudyResult, counts: list[int], blank: int) -> list[list]:
    """METG(50%) per system per core count, with METG / floor, then the floor's own row."""
    if result.metg is None:
        return []
    labels = dict(result.metg.values())
    rows = []
    for system in result.systems:
        cells = []
        for c in counts:
            m = result.metg.cell(system, labels[c]) if c in labels else None
            if m is None or m.seconds is None:
                cells.append(m.why_not if m else "not planned")
                continue
            ratio = times_floor(m.seconds, floor_at(result, labels[c]))
            ratio = f" ({ratio} floor)" if ratio else ""
            cells.append(units.seconds(m.seconds) + ratio + m.mark)
        rows.append([METG_LABEL, "", system, *cells] + [""] * blank)
    floor = [_floor_cell(result, c, labels[c]) if c in labels else "not planned" for c in counts]
    return rows + [[METG_LABEL, "", FLOOR, *floor] + [""] * blank]


def metg_findings(result: StudyResult) -> list[str]:
    """Per core count: each system's METG as a multiple of the floor, and where its 100% came from."""
    if result.metg is None:
        return []
    lines = []
    for c, label in result.metg.values():
        found = floor_at(result, label)
        parts = []
        for system in result.systems:
            m = result.metg.cell(system, label)
            if m.seconds is None:
                continue
            if m.unreliable and not result.metg.allow_unreliable:  # shown, but no ratio drawn from it
                parts.append(f"{system} {units.seconds(m.seconds)}{m.mark}: {m.unreliable}")
                continue
            ratio = times_floor(m.seconds, found)
            ratio = f", {ratio} the floor" if ratio else ""
            parts.append(f"{system} {units.seconds(m.seconds)}{m.mark}{ratio}")
        if found:
            floor = (f"floor {units.seconds(found['metg_lower_bound_seconds'])} ({found['workers']} pinned "
                     f"threads, {found['no_runtime_row_ns']:.0f} ns per row)")
        else:
            floor = "no floor (one worker exchanges nothing)" if c == 1 else "floor not recorded"
        lines.append(f"METG(50%) on {units.count(c, 'core')}: {'; '.join(parts) or 'none measured'}; {floor}")
        for analysis in result.metg.analyses.get(label, []):
            if c in analysis.peaks.describe():
                lines.append(f"100% on {units.count(c, 'core')} ({analysis.name}): {analysis.peaks.source(c)}")
    return lines


def efficiency(mode: str, scale: float, one: dict | None, run: dict | None) -> float | None:
    """scale: how many times the first column's cores the run had (its cores on this machine;
    across hosts, where one host may have many, cores / the first host's)."""
    if cell(one) or cell(run):
        return None
    speedup = one["elapsed_seconds"] / run["elapsed_seconds"]
    return speedup if mode == "weak" else speedup / scale


def hosts_of(result: StudyResult) -> dict[int, int]:
    """{cores: hosts} of a study across hosts (each column's cores span its first N hosts); {} on one machine."""
    return {p.point["cores"]: p.hosts for p in result.grid if p.hosts is not None}


def column(result: StudyResult, cores: int) -> str:
    hosts = hosts_of(result).get(cores)
    return units.count(cores, "core") if hosts is None else f"{units.count(hosts, 'host')} ({cores} cores)"


def efficiency_column(result: StudyResult, cores: int) -> str:
    hosts = hosts_of(result).get(cores)
    return f"efficiency on {cores}" if hosts is None else f"efficiency on {units.count(hosts, 'host')}"


def _axis(result: StudyResult) -> tuple[list[int], list[int]]:
    return result.axis("iter"), result.axis("cores")


def table(result: StudyResult, figures=units.READABLE) -> tuple[list[str], list[list]]:
    """figures: units.Figures, raw for -q."""
    iterations, counts = _axis(result)
    columns = (["measure", "-iter", "system"] + [f"on {column(result, c)}" for c in counts]
               + [efficiency_column(result, c) for c in counts[1:]])
    rows = []
    for mode in MODES:
        for it in iterations:
            for system in result.systems:
                if system in result.unavailable:
                    rows.append([mode, it, system, f"not available: {result.unavailable[system]}"]
                                + [""] * (len(columns) - 4))
                    continue
                best = {c: result.best(system, {"mode": mode, "iter": it, "cores": c}) for c in counts}
                times = [cell(best[c]) or figures.seconds(best[c]["elapsed_seconds"]) for c in counts]
                effs = [efficiency(mode, c / counts[0], best[counts[0]], best[c]) for c in counts[1:]]
                rows.append([mode, it, system, *times, *[figures.percent(e) if e is not None else "—" for e in effs]])
    return columns, rows + metg_rows(result, counts, len(counts) - 1)


def findings(result: StudyResult) -> list[str]:
    iterations, counts = _axis(result)
    if len(counts) < 2:
        alone = f"one {'host' if hosts_of(result) else 'core'} available: nothing to scale over"
        return [alone] + metg_findings(result)
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
                effs.append(efficiency(mode, top / counts[0], one, many))
            if all(e is not None for e in effs):
                text = ", ".join(f"{e:.0%} at -iter {it}" for it, e in zip(iterations, effs))
                lines.append(f"{mode} scaling to {column(result, top)}, {system}: {text}")
    return lines + metg_findings(result)


def figure(result: StudyResult):
    return plots.weak_and_strong_scaling(result, MODES, _axis(result), metg_points(result), floor_points(result),
                                         published.metg_vs_nodes("stencil_1d", paper_systems(result)))


STUDY = Study(
    name=NAME,
    title="Weak and strong scaling, and METG(50%) vs cores, over the cores available (paper Fig. 4, 5, 9a)",
    paper=f"{TASK_BENCH}, Figs. 4 and 5: scaling holds while the task granularity stays above METG "
          "(Fig. 14); Fig. 9a: METG of stencil vs nodes",
    roles=ROLES, reps=5, quick_reps=3, breakdown=False,
    grid=grid, table=table, findings=findings, figure=figure, metg=METG,
    hosts_grid=hosts_grid, hosts_sweeps=hosts_metg_sweeps)
