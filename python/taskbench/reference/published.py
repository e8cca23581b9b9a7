"""The published figures shown beside a measurement (`--reference sc20` on metg and report): a
table of its own, labelled as the paper's, for the measurement's pattern and graph count, never
a row of the measured table nor part of any ratio or ranking of measured systems."""

from __future__ import annotations

from taskbench import units
from taskbench.reference import sc20

CHOICES = ("sc20",)
LABEL = "published (Cori, SC20)"
KERNEL = "compute_bound"  # the kernel of the paper's compute/ data set


def metg_table(pattern: str, graphs: int, kernel: str, nodes: list[int],
               numeric: bool = False) -> tuple[str, list[str], list[list]] | str:
    """(title, columns, rows) of the paper's METG(50%) for this graph at these node counts (raw
    seconds where `numeric`, as -q gives the measured table), or the reason there is none."""
    if kernel != KERNEL:
        return f"{LABEL}: the paper's METG figures are of {KERNEL}, not {kernel}"
    rows = [r for r in sc20.shipped("compute") if r["visible"] == "True" and r["pattern"] == pattern
            and r["ngraphs"] == graphs]
    if not rows:
        return f"{LABEL}: the paper published no METG for {pattern} with {units.count(graphs, 'graph')}"
    columns = [units.count(n, "node") for n in nodes]
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        if r["nodes"] in nodes:
            figure = (r["metg_seconds"] if numeric else units.seconds(r["metg_seconds"])) if r["metg_seconds"] \
                else "no METG"
            cells.setdefault(r["label"], {})[units.count(r["nodes"], "node")] = figure
    title = (f"{LABEL}, for comparison only (not measured here, not in any ranking): METG(50%), {pattern}, "
             f"{units.count(graphs, 'graph')}, {KERNEL}, the paper's definition (mean of the repetitions per size)")
    return title, ["published system", *columns], [[label, *(c.get(col, "") for col in columns)]
                                                   for label, c in sorted(cells.items())]


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


# The published systems a study figure draws beside the measured ones: the paper's baseline and
# the fastest task-based systems (all of them would hide the measured lines).
STUDY_SERIES = ("MPI", "Charm++", "OpenMP task")


def metg_vs_radix(radices) -> list[tuple[str, list[tuple[int, float]]]]:
    """The paper's Fig. 10 series (nearest, 1 graph, 1 node) at these radices."""
    wanted = {str(r) for r in radices}
    series: dict[str, list[tuple[int, float]]] = {}
    for r in sc20.shipped("radix"):
        if (r["label"] in STUDY_SERIES and r["pattern"] == "nearest" and r["ngraphs"] == 1 and r["nodes"] == 1
                and r["radix"] in wanted and r["metg_seconds"]):
            series.setdefault(r["label"], []).append((int(r["radix"]), r["metg_seconds"]))
    return [(label, sorted(points)) for label, points in sorted(series.items())]


def metg_at(points: dict) -> list[tuple[str, list[tuple[object, float]]]]:
    """The paper's series (compute data set, 1 node) at a study's values: points maps each value to
    the (pattern, graphs) the paper published it as; values it did not publish are left out."""
    wanted = {key: value for value, key in points.items()}
    series: dict[str, list[tuple[object, float]]] = {}
    for r in sc20.shipped("compute"):
        value = wanted.get((r["pattern"], r["ngraphs"]))
        if value is not None and r["label"] in STUDY_SERIES and r["nodes"] == 1 and r["metg_seconds"]:
            series.setdefault(r["label"], []).append((value, r["metg_seconds"]))
    order = list(points)
    return [(label, sorted(found, key=lambda vm: order.index(vm[0]))) for label, found in sorted(series.items())]
