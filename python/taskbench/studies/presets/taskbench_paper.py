"""The Task Bench paper's METG experiments (../shared/papers/task-bench-sc20.txt, section V), one
METG study each: which sweeps they run and against which systems.

Figure numbers are the paper's: Fig. 7 (efficiency vs task granularity, stencil, 1 node) and
Fig. 9a (METG of stencil_1d, here at our one node) for `systems`; Fig. 10 (METG vs dependencies
per task, nearest) for `dependencies`; Fig. 9a-c plus the other patterns of Fig. 1 / Table 2 for
`patterns`; Fig. 9d (4 concurrent copies of nearest) for `graphs`; Fig. 11 (efficiency vs
granularity for 16 B to 64 KiB per task, spread, 5 deps, 4 graphs) for `communication`.

Width: the paper's graphs are as wide as the node's 32 cores. With our 2 cores a 2-wide nearest
graph cannot have more than 2 dependencies per task, so every study that varies dependencies or
patterns runs WIDE graphs (16 points, a power of two for fft and tree); `systems` keeps
width = cores, as in the paper.
"""

from __future__ import annotations

from taskbench.reference import published
from taskbench.studies.metg_preset import MetgStudy, Sweep

WIDE = 16
# How the report and `study --list` cite the paper (the text is in ../shared/papers/task-bench-sc20.txt).
TASK_BENCH = ('Slaughter et al., "Task Bench: A Parameterized Benchmark for Evaluating Parallel Runtime '
              'Performance", SC20')


def every_system(registry) -> list[str]:
    """Every system in the registry; the unavailable ones stay in the table with their reason."""
    return [s.name for s in registry]


def default_systems(registry) -> list[str]:
    """The registry's default systems: one per kind of runtime (serial, native, OpenMP, MPI)."""
    return [s.name for s in registry.defaults()]


SYSTEMS = MetgStudy(
    name="systems", title="METG(50%) of every system, stencil_1d, 1 node (paper Fig. 7 and Fig. 9a)",
    figure_number="Fig. 9a",
    # One node of Fig. 9a (Fig. 7's curves): 390 ns is MPI on nearest with radix 0 (Fig. 10), not this graph.
    paper=f"{TASK_BENCH}, Figs. 7 and 9a: METG(50%) on one Cori node from 3.68 µs (Chapel) and 4.58 µs (MPI) to "
          "373 ms (Spark)",
    parameter="pattern", default_systems=every_system, categorical=True,
    sweeps=lambda quick, cores: [Sweep("stencil_1d", "stencil_1d", {"pattern": "stencil_1d"})],
    full_minutes="~1 min per system (estimated, 3 repetitions)",
    published=lambda shown: published.metg_at({"stencil_1d": ("stencil_1d", 1)}, shown))

RADICES = (0, 1, 3, 5, 7, 9)
DEPENDENCIES = MetgStudy(
    name="dependencies", title="METG(50%) vs dependencies per task, nearest (paper Fig. 10)",
    figure_number="Fig. 10",
    paper=f"{TASK_BENCH}, Fig. 10: METG grows 0.82x to 250x (mean 21x) from 0 to 3 dependencies",
    parameter="radix", default_systems=default_systems,
    sweeps=lambda quick, cores: [Sweep(r, f"radix{r}", {"pattern": "nearest", "radix": r, "width": WIDE})
                                 for r in RADICES],
    full_minutes="~30 min (estimated)", published=lambda shown: published.metg_vs_radix(RADICES, shown))

PATTERNS = (("trivial", None), ("stencil_1d", None), ("fft", None), ("tree", None), ("nearest", 5),
            ("spread", 5), ("random_nearest", 5))
PATTERNS_STUDY = MetgStudy(
    name="patterns", title="METG(50%) per dependence pattern (paper Fig. 9a-c, patterns of Fig. 1)",
    figure_number="Fig. 9a-c",
    paper=f"{TASK_BENCH}, Fig. 9a-c: stencil, nearest (5 deps) and spread (5 deps) at 1-256 nodes",
    parameter="pattern", default_systems=default_systems, categorical=True,
    sweeps=lambda quick, cores: [Sweep(f"{p} r{r}" if r else p, f"{p}{r or ''}",
                                       {"pattern": p, "radix": r, "width": WIDE}) for p, r in PATTERNS],
    full_minutes="~35 min (estimated)",
    # The paper's Fig. 9a-c at 1 node (its nearest and spread have 5 dependencies per task) and fft.
    published=lambda shown: published.metg_at({"stencil_1d": ("stencil_1d", 1), "fft": ("fft", 1),
                                              "nearest r5": ("nearest", 1), "spread r5": ("spread", 1)}, shown))

GRAPHS = (1, 2, 4)
GRAPHS_STUDY = MetgStudy(
    name="graphs", title="METG(50%) vs concurrent task graphs, nearest r5 (paper Fig. 9d)",
    figure_number="Fig. 9d",
    paper=f"{TASK_BENCH}, Fig. 9d: 4 identical nearest graphs at once (task parallelism to overlap)",
    parameter="graphs", default_systems=default_systems,
    sweeps=lambda quick, cores: [Sweep(g, f"graphs{g}", {"pattern": "nearest", "radix": 5, "width": WIDE, "graphs": g})
                                 for g in GRAPHS],
    full_minutes="~20 min (estimated)",
    published=lambda shown: published.metg_at({1: ("nearest", 1), 4: ("nearest", 4)}, shown))

OUTPUT_BYTES_FULL = (16, 64, 256, 1024, 4096, 16384, 65536)
OUTPUT_BYTES_QUICK = (16, 1024, 65536)


def _communication_sweeps(quick: bool, cores: int) -> list[Sweep]:
    # The paper runs 4 graphs so that one graph's messages overlap another's tasks; --quick runs one.
    graphs = 1 if quick else 4
    return [Sweep(b, f"output{b}", {"pattern": "spread", "radix": 5, "width": WIDE, "graphs": graphs,
                                    "extra_flags": ["-output", str(b)]})
            for b in (OUTPUT_BYTES_QUICK if quick else OUTPUT_BYTES_FULL)]


COMMUNICATION_NODES = 64  # the paper's Fig. 11


def _published_communication(shown) -> list:
    """The paper's Fig. 11 runs (spread, 4 graphs) at 64 Cori nodes: its METG per output size."""
    return [(f"{label}, {COMMUNICATION_NODES} nodes, 4 graphs", points) for label, points in
            published.metg_vs("communication", OUTPUT_BYTES_FULL, "spread", 4, COMMUNICATION_NODES, shown)]


# The output sizes the paper published for MPI at 16, 64 and 256 nodes (sc20-communication.csv): a
# simulated study runs these alone (studies/simulated_study.py), each a sweep of minutes at 64
# nodes. Its 1 MiB point (256 nodes only) is not run: 8,192 ranks' buffers of 1 MiB outputs and
# inputs would take some 200 GB in smpirun's one process.
PUBLISHED_OUTPUT_BYTES = (16, 256, 4096, 65536)


def _published_communication_at(values, nodes: int, shown) -> list:
    """The paper's Fig. 11 series at one node count (4 graphs, whatever graphs the study runs)."""
    return [(f"{label}, 4 graphs", points)
            for label, points in published.metg_vs("communication", values, "spread", 4, nodes, shown)]


COMMUNICATION = MetgStudy(
    name="communication", title="METG(50%) vs output bytes per task, spread r5 (paper Fig. 11)",
    figure_number="Fig. 11",
    paper=f"{TASK_BENCH}, Fig. 11: efficiency vs granularity, 16 B to 64 KiB per task, spread, 4 graphs",
    parameter="bytes", default_systems=default_systems, sweeps=_communication_sweeps, log_axis=True,
    full_minutes="~40 min (estimated)", published=_published_communication,
    simulated_values=PUBLISHED_OUTPUT_BYTES, published_at_nodes=_published_communication_at)

STUDIES = (SYSTEMS, DEPENDENCIES, PATTERNS_STUDY, GRAPHS_STUDY, COMMUNICATION)
