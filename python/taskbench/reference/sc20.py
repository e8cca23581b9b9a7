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

from taskbench import units
from taskbench.reference import paper_metg, task_bench_log

PARSER_VERSION = 2
SOURCE = "https://github.com/StanfordLegion/task-bench-results"
COMMIT = "cd2fa42"
DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Machine:
    """What a log's efficiency and granularity divide by: the peak FLOP/s of one node and the
    processors a node's tasks share (its cores, or its one GPU)."""
    name: str
    peak_flops: float
    processors: int


CORI = Machine("Cori Haswell (32 cores)", paper_metg.CORI_HASWELL_PEAK, paper_metg.CORI_CORES_PER_NODE)
# Piz Daint (Fig. 13): the paper gives the peaks its kernels reached, 5.726e11 FLOP/s on the
# node's 12-core Xeon E5-2690 v3 and 4.759e12 on its P100 (officially 4.761e12). A GPU run's
# processor is the GPU: its granularity is elapsed x GPUs / tasks, however many ranks share it.
DAINT_CPU = Machine("Piz Daint Xeon E5-2690 v3 (12 cores)", 5.726e11, 12)
DAINT_GPU = Machine("Piz Daint P100 (1 GPU)", 4.759e12, 1)


@dataclass(frozen=True)
class DataSet:
    param: str | None  # the parameter its file names sweep besides nodes (None: nodes alone)
    what: str  # the paper's figures it holds
    machine: object = None  # system -> Machine; None: Cori
    site: str = "Cori"  # the machine the paper ran it on, in every label of its figures
    pattern: str = "stencil_1d"  # the graph of its figures (`taskbench reference`'s defaults)
    graphs: int = 1

    def machine_of(self, system: str) -> Machine:
        return self.machine(system) if self.machine else CORI


def _daint(system: str) -> Machine:
    return DAINT_GPU if "_gpu_" in system else DAINT_CPU


# folder of logs -> what it holds
DATA_SETS = {
    "compute": DataSet(None, "Figs. 7-9 (compute_bound, 1-256 nodes)"),
    "radix": DataSet("radix", "Fig. 10 (dependencies per task)", pattern="nearest"),
    "communication": DataSet("comm", "Fig. 11 (output bytes per task, spread, 4 graphs)", pattern="spread", graphs=4),
    "imbalance": DataSet("imbalance", "Fig. 12 (load imbalance, nearest, 4 graphs)", pattern="nearest", graphs=4),
    "cuda_compute": DataSet(None, "Fig. 13 (MPI and MPI+CUDA on Piz Daint)", _daint, "Piz Daint"),
}
# The GPU data set's systems have no row in legend.csv: labels after the paper's text (w1: 1 rank
# per GPU, w4: 4 ranks sharing it), shown as Fig. 13 shows them; the other widths are not.
GPU_LABELS = {"mpi_nonblock": ("MPI", "True"), "mpi_nonblock_gpu_width_1_rank_1": ("MPI+CUDA w1", "True"),
              "mpi_nonblock_gpu_width_4_rank_4": ("MPI+CUDA w4", "True")}
# <system>_ngraphs_<G>_type_<pattern>[_<param>_<value>]_nodes_<N>[_<cores>_<binding>].log: the
# OpenMP logs name their cores and thread binding last (32, spread: the figures' runs). Logs in
# deeper folders (old/, width_31_nobinding/) are earlier trials, not the paper's figures.
_NAME = re.compile(r"^(?P<system>.+?)_ngraphs_(?P<ngraphs>\d+)_type_(?P<pattern>[a-z0-9_]+?)"
                   r"(?:_(?P<param>[a-z]+)_(?P<value>\d+(?:\.\d+)?))?_nodes_(?P<nodes>\d+)"
                   r"(?:_\d+_[a-z]+)?\.log$")
# The paper's systems that no package registry this project installs from has (Debian, PyPI,
# crates.io, npm, Maven Central, the Go proxy; checked for issue 38): published rows only.
PUBLISHED_ONLY = ("Chapel", "Charm++", "OmpSs", "PaRSEC DTD", "Regent", "Swift/T", "X10")
COLUMNS = ["system", "label", "visible", "ngraphs", "pattern", "nodes", "sizes", "metg_seconds",
           "largest_size_efficiency"]
# The efficiency curves shipped, a row per problem size: data set -> the node count drawn (Fig. 7
# and Fig. 13 are of 1 node).
CURVES = {"compute": 1, "cuda_compute": 1}
CURVE_COLUMNS = ["system", "label", "visible", "ngraphs", "pattern", "nodes", "iterations", "reps",
                 "granularity_seconds", "efficiency", "flops_per_second", "flops_per_step"]


@dataclass(frozen=True)
class Row:
    system: str
    ngraphs: int
    pattern: str
    param: str | None  # the folder's swept value (radix 3), as the file name gives it
    nodes: int
    points: tuple[paper_metg.Point, ...]  # the curve, largest problem first
    cut_short: int = 0  # runs the log holds that died before their totals: the original refuses it

    @property
    def metg_seconds(self) -> float | None:
        return None if self.cut_short else paper_metg.metg(list(self.points))


def legend(source: Path, folder: str) -> dict[str, tuple[str, str]]:
    """system -> (the paper's label, whether its figures show it), from legend.csv."""
    if folder.startswith("cuda_"):
        return GPU_LABELS
    with open(source / "legend.csv", newline="") as f:
        return {r["name"]: (r["label"], r["visible"]) for r in csv.DictReader(f)}


def derive(source: Path, folder: str) -> list[Row]:
    data_set = DATA_SETS[folder]
    rows = []
    for path in sorted((source / folder).glob("*/*.log")):
        name = _NAME.match(path.name)
        if name is None or name["param"] != data_set.param:
            continue
        nodes, machine = int(name["nodes"]), data_set.machine_of(name["system"])
        text = path.read_text(errors="replace")
        points = paper_metg.curve(task_bench_log.runs(text), nodes, machine.peak_flops, machine.processors)
        rows.append(Row(name["system"], int(name["ngraphs"]), name["pattern"], name["value"], nodes, tuple(points),
                        task_bench_log.cut_short(text)))
    rows.sort(key=lambda r: (r.system, r.ngraphs, r.pattern, float(r.param or 0), r.nodes))
    keys = [(r.system, r.ngraphs, r.pattern, r.param, r.nodes) for r in rows]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{source / folder}: two logs of one configuration")
    return rows


def _figure(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def csv_text(source: Path, folder: str) -> str:
    """The data set's file: a header saying where it comes from, then a row per log."""
    labels = legend(source, folder)
    param = DATA_SETS[folder].param
    out = io.StringIO()
    out.write(_header(folder, f"METG(50%) per log of the SC20 paper's folder {folder}/"))
    writer = csv.writer(out, lineterminator="\n")
    columns = COLUMNS[:5] + ([param] if param else []) + COLUMNS[5:]
    writer.writerow(columns)
    for r in derive(source, folder):
        label, visible = labels.get(r.system, (r.system, ""))
        writer.writerow([r.system, label, visible, r.ngraphs, r.pattern, *([r.param] if param else []), r.nodes,
                         len(r.points), _figure(r.metg_seconds),
                         _figure(r.points[0].efficiency if r.points else None)])
    return out.getvalue()


def _header(name: str, what: str) -> str:
    data_set = DATA_SETS[name.removesuffix("-curves")]
    machines = ([DAINT_CPU, DAINT_GPU] if data_set.machine else [CORI])
    per_node = "; ".join(f"{m.name}: {m.peak_flops:.6e} FLOP/s per node, granularity x {m.processors}"
                         for m in machines)
    gpu = " (GPU runs: _gpu_ in the system's name)" if data_set.machine else ""
    return (f"# taskbench reference data set sc20-{name}: {what}, the paper's {data_set.what}\n"
            f"# peaks{gpu}: {per_node}\n"
            f"# source: {SOURCE} at commit {COMMIT}\n"
            f"# derived by scripts/derive-reference.py, parser version {PARSER_VERSION}, with the paper's "
            "METG definition (python/taskbench/reference/paper_metg.py)\n")


def curves_text(source: Path, folder: str) -> str:
    """The efficiency curves of a folder's logs at CURVES[folder] node(s): a row per size, FLOP/s
    and FLOPs per timestep per node."""
    labels = legend(source, folder)
    nodes = CURVES[folder]
    out = io.StringIO()
    out.write(_header(f"{folder}-curves", f"efficiency per problem size of the folder {folder}/ at "
                                          f"{units.count(nodes, 'node')}, the mean of the repetitions"))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CURVE_COLUMNS)
    data_set = DATA_SETS[folder]
    for r in derive(source, folder):
        if r.nodes != nodes:
            continue
        label, visible = labels.get(r.system, (r.system, ""))
        peak = data_set.machine_of(r.system).peak_flops
        for point in r.points:
            writer.writerow([r.system, label, visible, r.ngraphs, r.pattern, r.nodes, point.iterations[0], point.reps,
                             f"{point.granularity_seconds:.4g}", f"{point.efficiency:.4g}",
                             f"{point.efficiency * peak:.4g}", f"{point.flops_per_step:.4g}"])
    return out.getvalue()


def written(source: Path) -> dict[str, str]:
    """Every shipped file's name and text, as the script writes them from a checkout."""
    files = {f"sc20-{folder}.csv": csv_text(source, folder) for folder in DATA_SETS}
    files.update({f"sc20-{folder}-curves.csv": curves_text(source, folder) for folder in CURVES})
    return files


def _read(name: str) -> list[dict]:
    lines = [l for l in (DATA / f"sc20-{name}.csv").read_text().splitlines() if not l.startswith("#")]
    return list(csv.DictReader(lines))


def shipped_curves(folder: str = "compute") -> list[dict]:
    rows = _read(f"{folder}-curves")
    for r in rows:
        r["ngraphs"], r["nodes"], r["iterations"] = int(r["ngraphs"]), int(r["nodes"]), int(r["iterations"])
        for key in ("granularity_seconds", "efficiency", "flops_per_second", "flops_per_step"):
            r[key] = float(r[key])
    return rows


def shipped(folder: str) -> list[dict]:
    """A shipped data set's rows (metg_seconds and largest_size_efficiency floats, or None)."""
    rows = _read(folder)
    for r in rows:
        for key in ("metg_seconds", "largest_size_efficiency"):
            r[key] = float(r[key]) if r[key] else None
        r["nodes"], r["ngraphs"] = int(r["nodes"]), int(r["ngraphs"])
    return rows
