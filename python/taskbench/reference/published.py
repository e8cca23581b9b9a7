"""The published figures shown beside a measurement (`--reference sc20` on metg and report): a
table of its own, labelled as the paper's, for the measurement's pattern and graph count, never
a row of the measured table nor part of any ratio or ranking of measured systems."""

from __future__ import annotations

from taskbench import units
from taskbench.reference import sc20

CHOICES = ("sc20",)


def label(data_set: str = "compute") -> str:
    """What every published figure is labelled with: the paper and the machine it ran on."""
    return f"published ({sc20.DATA_SETS[data_set].site}, SC20)"


LABEL = label()
KERNEL = "compute_bound"  # the kernel of the paper's compute/ data set


def ports(entries) -> dict[str, list[str]]:
    """{published system: the names of the entries that run its algorithm}, from (name,
    paper_system) pairs: a registry's `paper_system` facts."""
    found: dict[str, list[str]] = {}
    for name, system in entries:
        if system:
            found.setdefault(system, []).append(name)
    return found


def metg_table(pattern: str, graphs: int, kernel: str, nodes: list[int], numeric: bool = False,
               ported: dict[str, list[str]] | None = None) -> tuple[str, list[str], list[list]] | str:
    """(title, columns, rows) of the paper's METG(50%) for this graph at these node counts (raw
    seconds where `numeric`, as -q gives the measured table), or the reason there is none. With
    `ported` (ports()), a column names the entries here that run each published system's port."""
    if kernel != KERNEL:
        return f"{LABEL}: the paper's METG figures are of {KERNEL}, not {kernel}"
    rows = [r for r in sc20.shipped("compute") if r["visible"] == "True" and r["pattern"] == pattern
            and r["ngraphs"] == graphs]
    if not rows:
        return f"{LABEL}: the paper published no METG for {pattern} with {units.count(graphs, 'graph')}"
    columns = [units.count(n, "node") for n in nodes]
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        if r["nodes"] in nodes:
            figure = (r["metg_seconds"] if numeric else units.seconds(r["metg_seconds"])) if r["metg_seconds"] \
                else "no METG"
            cells.setdefault((r["label"], r["system"]), {})[units.count(r["nodes"], "node")] = figure
    title = (f"{LABEL}, for comparison only (not measured here, not in any ranking): METG(50%), {pattern}, "
             f"{units.count(graphs, 'graph')}, {KERNEL}, the paper's definition (mean of the repetitions per size)")
    extra = ["its port here"] if ported is not None else []
    return title, ["published system", *extra, *columns], [
        [label, *([", ".join(ported.get(system, [])) or "-"] if ported is not None else []),
         *(c.get(col, "") for col in columns)] for (label, system), c in sorted(cells.items())]


def efficiency_curves(pattern: str, graphs: int, kernel: str) -> list[tuple[str, list[tuple[float, float]]]]:
    """The paper's efficiency curves (Fig. 7, 1 node) for this graph: (label, [(granularity,
    efficiency)]) per shown system, largest problem first; [] where it published none."""
    if kernel != KERNEL:
        return []
    curves: dict[str, list[tuple[float, float]]] = {}
    for r in sc20.shipped_curves():
        if r["visible"] == "True" and r["pattern"] == pattern and r["ngraphs"] == graphs:
            curves.setdefault(r["label"], []).append((r["granularity_seconds"], r["efficiency"]))
    return sorted(curves.items())


# The published systems a study figure draws beside the measured ones when none of them stands
# for a paper row (registry `paper_system`): the paper's baseline and the fastest task-based
# systems (all of them would hide the measured lines).
CONTEXT_SYSTEMS = ("mpi_nonblock", "charm", "openmp_intel")


def systems() -> dict[str, str]:
    """{system: label} of every system the shipped data sets hold (the published data's own
    names, e.g. mpi_bulk_synchronous: "MPI bulk sync"), shown or not in the paper's figures."""
    found: dict[str, str] = {}
    for data_set in sc20.DATA_SETS:
        for r in sc20.shipped(data_set):
            found.setdefault(r["system"], r["label"])
    return found


def label_of(system: str) -> str:
    """The label the paper prints for one of its systems (its legend's)."""
    return systems().get(system, system)


def study_systems(paper_systems) -> tuple[str, ...]:
    """The published series a study figure draws: the paper rows its measured systems stand for
    (their registry `paper_system`), or CONTEXT_SYSTEMS where none does."""
    return tuple(dict.fromkeys(s for s in paper_systems if s)) or CONTEXT_SYSTEMS


def metg_vs(data_set: str, values, pattern: str, graphs: int, nodes: int,
            shown=CONTEXT_SYSTEMS) -> list[tuple[str, list[tuple[object, float]]]]:
    """The paper's METG series of a data set that sweeps a parameter (radix, comm, imbalance)
    for this graph at one node count, at these values of the parameter (as a study names them),
    of the systems `shown` (the published data's names), each labelled as the paper labels it."""
    param = sc20.DATA_SETS[data_set].param
    wanted = {float(v): v for v in values}
    series: dict[str, list[tuple[object, float]]] = {}
    for r in sc20.shipped(data_set):
        value = wanted.get(float(r[param]))
        if (value is not None and r["system"] in shown and r["pattern"] == pattern
                and r["ngraphs"] == graphs and r["nodes"] == nodes and r["metg_seconds"]):
            series.setdefault(r["label"], []).append((value, r["metg_seconds"]))
    return [(name, sorted(points, key=lambda vm: float(vm[0]))) for name, points in sorted(series.items())]


def metg_vs_radix(radices, shown=CONTEXT_SYSTEMS) -> list[tuple[str, list[tuple[object, float]]]]:
    """The paper's Fig. 10 series (nearest, 1 graph, 1 node) at these radices."""
    return metg_vs("radix", radices, "nearest", 1, 1, shown)


def metg_vs_nodes(pattern: str = "stencil_1d", shown=CONTEXT_SYSTEMS) -> list[tuple[str, list[tuple[int, float]]]]:
    """The paper's Fig. 9 series: METG against node count (1 graph) of the systems `shown`."""
    series: dict[str, list[tuple[int, float]]] = {}
    for r in sc20.shipped("compute"):
        if r["system"] in shown and r["pattern"] == pattern and r["ngraphs"] == 1 and r["metg_seconds"]:
            series.setdefault(r["label"], []).append((r["nodes"], r["metg_seconds"]))
    return [(name, sorted(points)) for name, points in sorted(series.items())]


def metg_by_nodes(system: str, pattern: str, graphs: int = 1) -> dict[int, float]:
    """{nodes: METG(50%)} the paper published for one of its systems (the published data's name,
    a registry entry's `paper_system`) on this graph with the compute kernel; {} where none."""
    return {r["nodes"]: r["metg_seconds"] for r in sc20.shipped("compute")
            if r["system"] == system and r["pattern"] == pattern and r["ngraphs"] == graphs and r["metg_seconds"]}


def imbalance_cost(levels, nodes: int = 1, shown=CONTEXT_SYSTEMS) -> list[tuple[str, list[tuple[float, float]]]]:
    """The paper's Fig. 12 (nearest, 5 dependencies, 4 graphs) as the imbalance study measures:
    time per unit of work against the balanced run, here at the largest problem size (where the
    paper says imbalance bounds efficiency): efficiency at imbalance 0 / efficiency at x."""
    rows = [r for r in sc20.shipped("imbalance") if r["system"] in shown
            and r["pattern"] == "nearest" and r["ngraphs"] == 4 and r["nodes"] == nodes
            and r["largest_size_efficiency"]]
    top = max(levels)
    series = []
    for name in sorted({r["label"] for r in rows}):
        mine = {float(r["imbalance"]): r["largest_size_efficiency"] for r in rows if r["label"] == name}
        if 0.0 in mine:
            series.append((name, [(x, mine[0.0] / e) for x, e in sorted(mine.items()) if x <= top]))
    return series


def gpu_curves(pattern: str = "stencil_1d") -> list[tuple[str, list[tuple[float, float]]]]:
    """The paper's Fig. 13 (Piz Daint, 1 node): (label, [(normalized size, FLOP/s per node)]), the
    size being FLOPs per timestep over the largest of the CPU's (MPI's) curve, so that one size is
    the same work on the CPU and the GPU, as the paper's axis is."""
    rows = [r for r in sc20.shipped_curves("cuda_compute") if r["visible"] == "True" and r["pattern"] == pattern]
    cpu = [r["flops_per_step"] for r in rows if r["label"] == "MPI"]
    if not cpu:
        return []
    series: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        series.setdefault(r["label"], []).append((r["flops_per_step"] / max(cpu), r["flops_per_second"]))
    return [(name, sorted(points)) for name, points in sorted(series.items())]


def metg_at(points: dict, shown=CONTEXT_SYSTEMS) -> list[tuple[str, list[tuple[object, float]]]]:
    """The paper's series (compute data set, 1 node) at a study's values: points maps each value to
    the (pattern, graphs) the paper published it as; values it did not publish are left out."""
    wanted = {key: value for value, key in points.items()}
    series: dict[str, list[tuple[object, float]]] = {}
    for r in sc20.shipped("compute"):
        value = wanted.get((r["pattern"], r["ngraphs"]))
        if value is not None and r["system"] in shown and r["nodes"] == 1 and r["metg_seconds"]:
            series.setdefault(r["label"], []).append((value, r["metg_seconds"]))
    order = list(points)
    return [(label, sorted(found, key=lambda vm: order.index(vm[0]))) for label, found in sorted(series.items())]
