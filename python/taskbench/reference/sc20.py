"""The SC20 paper's data sets, derived from its raw logs (the public repository
StanfordLegion/task-bench-results, commit cd2fa42): one CSV per folder of logs, a row per log
file (system, graphs, pattern, the folder's own swept parameter, nodes) with the METG(50%) the
paper's reduction gives (paper_metg.py). The project ships these files (data/), never the logs;
scripts/derive-reference.py writes them again from a checkout, byte for byte."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from taskbench.reference import paper_metg, task_bench_log

PARSER_VERSION = 1
SOURCE = "https://github.com/StanfordLegion/task-bench-results"
COMMIT = "cd2fa42"
DATA = Path(__file__).resolve().parent / "data"
# folder of logs -> the parameter its file names sweep besides nodes (None: nodes alone)
DATA_SETS = {"compute": None, "radix": "radix"}
# <system>_ngraphs_<G>_type_<pattern>[_<param>_<value>]_nodes_<N>[_<cores>_<binding>].log: the
# OpenMP logs name their cores and thread binding last (32, spread: the figures' runs). Logs in
# deeper folders (old/, width_31_nobinding/) are earlier trials, not the paper's figures.
_NAME = re.compile(r"^(?P<system>.+?)_ngraphs_(?P<ngraphs>\d+)_type_(?P<pattern>[a-z0-9_]+?)"
                   r"(?:_(?P<param>[a-z]+)_(?P<value>\d+(?:\.\d+)?))?_nodes_(?P<nodes>\d+)"
                   r"(?:_\d+_[a-z]+)?\.log$")
# The paper's systems that no package registry this project installs from has (Debian, PyPI,
# crates.io, npm, Maven Central, the Go proxy; checked for issue 38): published rows only.
PUBLISHED_ONLY = ("Chapel", "Charm++", "OmpSs", "PaRSEC DTD", "Regent", "Swift/T", "X10")
COLUMNS = ["system", "label", "visible", "ngraphs", "pattern", "nodes", "sizes", "metg_seconds"]
# The efficiency curves shipped (the paper's Fig. 7: 1 node), a row per problem size.
CURVES = "compute-curves"
CURVE_NODES = 1
CURVE_COLUMNS = ["system", "label", "visible", "ngraphs", "pattern", "nodes", "iterations", "reps",
                 "granularity_seconds", "efficiency"]


@dataclass(frozen=True)
class Row:
    system: str
    ngraphs: int
    pattern: str
    param: str | None  # the folder's swept value (radix 3), as the file name gives it
    nodes: int
    sizes: int  # problem sizes the curve has
    metg_seconds: float | None
    points: tuple[paper_metg.Point, ...] = ()  # the curve (the Fig. 7 data at 1 node)


def legend(source: Path) -> dict[str, tuple[str, str]]:
    """system -> (the paper's label, whether its figures show it), from legend.csv."""
    with open(source / "legend.csv", newline="") as f:
        return {r["name"]: (r["label"], r["visible"]) for r in csv.DictReader(f)}


def derive(source: Path, folder: str) -> list[Row]:
    param = DATA_SETS[folder]
    rows = []
    for path in sorted((source / folder).glob("*/*.log")):
        name = _NAME.match(path.name)
        if name is None or name["param"] != param:
            continue
        nodes = int(name["nodes"])
        points = paper_metg.curve(task_bench_log.runs(path.read_text(errors="replace")), nodes)
        rows.append(Row(name["system"], int(name["ngraphs"]), name["pattern"], name["value"], nodes, len(points),
                        paper_metg.metg(points), tuple(points)))
    rows.sort(key=lambda r: (r.system, r.ngraphs, r.pattern, float(r.param or 0), r.nodes))
    keys = [(r.system, r.ngraphs, r.pattern, r.param, r.nodes) for r in rows]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{source / folder}: two logs of one configuration")
    return rows


def csv_text(source: Path, folder: str) -> str:
    """The data set's file: a header saying where it comes from, then a row per log."""
    labels = legend(source)
    param = DATA_SETS[folder]
    out = io.StringIO()
    out.write(_header(folder, f"METG(50%) per log of the SC20 paper's folder {folder}/"))
    writer = csv.writer(out, lineterminator="\n")
    columns = COLUMNS[:5] + ([param] if param else []) + COLUMNS[5:]
    writer.writerow(columns)
    for r in derive(source, folder):
        label, visible = labels.get(r.system, (r.system, ""))
        writer.writerow([r.system, label, visible, r.ngraphs, r.pattern, *([r.param] if param else []), r.nodes,
                         r.sizes, "" if r.metg_seconds is None else f"{r.metg_seconds:.4g}"])
    return out.getvalue()


def _header(name: str, what: str) -> str:
    return (f"# taskbench reference data set sc20-{name}: {what} (Cori Haswell, 32 cores and "
            f"{paper_metg.CORI_HASWELL_PEAK:.6e} FLOP/s per node)\n"
            f"# source: {SOURCE} at commit {COMMIT}\n"
            f"# derived by scripts/derive-reference.py, parser version {PARSER_VERSION}, with the paper's "
            "METG definition (python/taskbench/reference/paper_metg.py)\n")


def curves_text(source: Path) -> str:
    """The efficiency curves of the compute/ logs at CURVE_NODES node(s): a row per size."""
    labels = legend(source)
    out = io.StringIO()
    out.write(_header(CURVES, f"efficiency per problem size of the folder compute/ at {CURVE_NODES} node(s), "
                              "the mean of the repetitions"))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CURVE_COLUMNS)
    for r in derive(source, "compute"):
        if r.nodes != CURVE_NODES:
            continue
        label, visible = labels.get(r.system, (r.system, ""))
        for point in r.points:
            writer.writerow([r.system, label, visible, r.ngraphs, r.pattern, r.nodes, point.iterations[0], point.reps,
                             f"{point.granularity_seconds:.4g}", f"{point.efficiency:.4g}"])
    return out.getvalue()


def shipped_curves() -> list[dict]:
    lines = [l for l in (DATA / f"sc20-{CURVES}.csv").read_text().splitlines() if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    for r in rows:
        r["ngraphs"], r["nodes"], r["iterations"] = int(r["ngraphs"]), int(r["nodes"]), int(r["iterations"])
        r["granularity_seconds"], r["efficiency"] = float(r["granularity_seconds"]), float(r["efficiency"])
    return rows


def shipped(folder: str) -> list[dict]:
    """A shipped data set's rows (metg_seconds a float, or None)."""
    lines = [l for l in (DATA / f"sc20-{folder}.csv").read_text().splitlines() if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    for r in rows:
        r["metg_seconds"] = float(r["metg_seconds"]) if r["metg_seconds"] else None
        r["nodes"], r["ngraphs"] = int(r["nodes"]), int(r["ngraphs"])
    return rows
