"""The paper's figures beside a measurement (--reference sc20): a table of their own after the
measured one, titled as published, for the campaign's pattern and graph count only; and the
paper's efficiency curves for the Fig. 7 plot."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from taskbench.reference import published, sc20

REPO = Path(__file__).resolve().parents[2]


def metg_with_reference(db: Path, *quiet: str) -> subprocess.CompletedProcess:
    got = subprocess.run([sys.executable, "-m", "taskbench", "--db", str(db), *quiet, "metg", "serial",
                          "--reference", "sc20", "--reference-nodes", "1", "--reference-nodes", "256", "--steps", "10",
                          "--width", "1", "--reps", "1", "--tries", "1", "--refine", "0"],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
    assert got.returncode in (0, 5), got.stderr  # 5: a METG measured beside other processes
    return got


def tables(stdout: str) -> tuple[list[list[str]], list[list[str]]]:
    """The measured table's rows and the published one's, split at the latter's header."""
    lines = [l.split("\t") for l in stdout.splitlines()]
    split = lines.index(["published system", "its port here", "1 node", "256 nodes"])
    return lines[1:split], lines[split + 1:]


def test_metg_shows_the_published_figures_apart_from_the_measured_table(tmp_path):
    got = metg_with_reference(tmp_path / "m.db")
    measured, paper = tables(got.stdout)
    assert [row[0] for row in measured if row[0] in ("serial", "MPI", "Chapel")] == ["serial"]
    assert next(row for row in paper if row[0] == "MPI")[1:] == ["mpi_p2p, mpi_p2p_mpich, mpi_p2p_smpi", "4.58 µs",
                                                                 "60.6 µs"]
    assert "published (Cori, SC20), for comparison only (not measured here, not in any ranking)" in got.stderr
    # -q: raw seconds, as the measured table gives them.
    measured, paper = tables(metg_with_reference(tmp_path / "m.db", "-q").stdout)
    assert [row[0] for row in measured] == ["serial"]
    assert next(row for row in paper if row[0] == "MPI")[2:] == ["4.583e-06", "6.061e-05"]


def test_no_published_figures_for_another_kernel_or_an_unpublished_graph():
    assert published.metg_table("stencil_1d", 1, "memory_bound", [1]) == \
        "published (Cori, SC20): the paper's METG figures are of compute_bound, not memory_bound"
    assert published.metg_table("dom", 1, "compute_bound", [1]) == \
        "published (Cori, SC20): the paper published no METG for dom with 1 graph"
    assert published.efficiency_curves("stencil_1d", 1, "memory_bound") == []


def test_the_papers_efficiency_curves_run_from_the_largest_problem_down():
    curves = dict(published.efficiency_curves("stencil_1d", 1, "compute_bound"))
    assert {"MPI", "Chapel", "Regent", "X10"} <= set(curves)
    mpi = curves["MPI"]
    assert len(mpi) == 22
    assert mpi[0][1] > 0.95 and mpi[-1][1] < 0.5  # from near peak down past the threshold
    assert mpi[0][0] > mpi[-1][0]


def test_predict_takes_the_published_metg_per_node_count():
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    run = [sys.executable, "-m", "taskbench", "predict", "--work", "40.96", "--tasks-per-core", "1000",
           "--cores-per-node", "32"]
    got = subprocess.run([*run, "--reference-system", "MPI"], capture_output=True, text=True, env=env, timeout=60)
    assert got.returncode == 0, got.stderr
    rows = [l.split("\t") for l in got.stdout.splitlines()[1:] if l[:1].isdigit()]
    assert [(r[0], r[4], r[7]) for r in rows] == [
        ("1", "4.58 µs", "yes"), ("2", "7.78 µs", "yes"), ("4", "8.37 µs", "yes"), ("8", "8.33 µs", "yes"),
        ("16", "9.74 µs", "yes"), ("32", "10.5 µs", "yes"), ("64", "11.7 µs", "yes"), ("128", "28.6 µs", "no"),
        ("256", "60.6 µs", "no")]
    assert "limit: 64 nodes, time to solution 20.0 ms" in got.stdout
    bad = subprocess.run([*run, "--reference-system", "MPi"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("taskbench: --reference-system MPi: not a system the paper published; did you mean "
                                  "MPI? (`taskbench reference --all` lists them, with the systems here that run their "
                                  "rows)")
    lower = subprocess.run([*run, "--reference-system", "mpi"], capture_output=True, text=True, env=env, timeout=60)
    assert lower.returncode == 2 and "did you mean MPI?" in lower.stderr, lower.stderr
    # The registry's fact: mpi_bulk runs the paper's bulk-synchronous MPI, whose figures it takes.
    bulk = subprocess.run([*run, "--reference-system", "mpi_bulk"], capture_output=True, text=True, env=env, timeout=60)
    assert bulk.returncode == 0, bulk.stderr
    assert "MPI bulk sync (mpi_bulk_synchronous)" in bulk.stdout + bulk.stderr
    assert [l.split("\t")[4] for l in bulk.stdout.splitlines()[1:] if l[:1].isdigit()][:2] == ["8.96 µs", "27.4 µs"]


def test_the_dependencies_study_draws_the_papers_fig10_series():
    from taskbench.studies.presets.taskbench_paper import DEPENDENCIES, RADICES
    series = dict(DEPENDENCIES.published(published.CONTEXT_SYSTEMS))
    assert set(series) == {published.label_of(s) for s in published.CONTEXT_SYSTEMS} == {"MPI", "Charm++", "OpenMP task"}
    assert [r for r, _ in series["MPI"]] == list(RADICES)
    assert dict(series["MPI"])[0] == 3.869e-07 and dict(series["MPI"])[3] == 4.6e-06


def test_the_systems_patterns_and_graphs_studies_draw_the_papers_fig9_series():
    from taskbench.studies.presets.taskbench_paper import GRAPHS_STUDY, PATTERNS_STUDY, SYSTEMS
    assert dict(SYSTEMS.published(published.CONTEXT_SYSTEMS))["MPI"] == [("stencil_1d", 4.583e-06)]
    # nearest and spread of the paper's compute/ logs have 5 dependencies per task: "nearest r5" here
    assert dict(PATTERNS_STUDY.published(published.CONTEXT_SYSTEMS))["MPI"] == [("stencil_1d", 4.583e-06), ("fft", 5.702e-06),
                                                       ("nearest r5", 6.76e-06), ("spread r5", 8.526e-06)]
    assert dict(GRAPHS_STUDY.published(published.CONTEXT_SYSTEMS))["MPI"] == [(1, 6.76e-06), (4, 7.013e-06)]


def test_the_communication_study_draws_the_papers_fig11_at_64_nodes():
    from taskbench.studies.presets.taskbench_paper import COMMUNICATION
    series = dict(COMMUNICATION.published(published.CONTEXT_SYSTEMS))
    assert set(series) == {"MPI, 64 nodes, 4 graphs", "Charm++, 64 nodes, 4 graphs"}  # OpenMP is one node
    # 16 B: 140.3 us, the deciding size itself (the next smaller one ran coarser: no interpolation)
    assert series["MPI, 64 nodes, 4 graphs"] == [(16, 1.403e-04), (256, 1.054e-04), (4096, 3.286e-04),
                                                 (65536, 3.221e-03)]


def test_the_imbalance_cost_is_the_papers_efficiency_lost_at_the_largest_size():
    series = dict(published.imbalance_cost((0.0, 0.5, 1.0, 2.0)))
    rows = {r["imbalance"]: r["largest_size_efficiency"] for r in sc20.shipped("imbalance")
            if r["label"] == "MPI" and r["nodes"] == 1}
    assert series["MPI"][0] == (0.0, 1.0)
    assert dict(series["MPI"])[2.0] == pytest.approx(rows["0.0"] / rows["2.0"])
    assert dict(series["MPI"])[2.0] > 1.5 > dict(series["Charm++"])[2.0]  # MPI suffers the most (Sec. V-G)
    assert [x for x, _ in series["MPI"]] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert [x for x, _ in dict(published.imbalance_cost((0.0, 1.0)))["MPI"]] == [0.0, 0.5, 1.0]


def test_the_imbalance_figure_draws_the_papers_series_in_the_nearest_panel_only():
    from types import SimpleNamespace

    from taskbench.plots import study_figures
    points = [{"pattern": p, "imbalance": x} for p in ("stencil_1d", "nearest") for x in (0.0, 2.0)]
    result = SimpleNamespace(name="r", systems=["native"], points=lambda: points,
                             best=lambda system, point: {"elapsed_seconds": 1.0 + point["imbalance"], "flops": 1.0})
    fig = study_figures.imbalance_cost(result, ("stencil_1d", "nearest"), lambda run, balanced: run["elapsed_seconds"],
                            str, {"nearest": published.imbalance_cost((0.0, 2.0))})
    labels = [[line.get_label() for line in ax.get_lines()] for ax in fig.axes]
    assert "native" in labels[0] and "native" in labels[1]
    assert not any("published" in label for label in labels[0])
    assert {l for l in labels[1] if l.startswith("published")} == {
        f"published (Cori, SC20), Fig. 12 (4 graphs, largest size): {published.label_of(s)}"
        for s in published.CONTEXT_SYSTEMS}


def test_a_study_figure_draws_the_paper_rows_its_systems_run():
    """The registry's `paper_system` decides the published series beside a study's systems: a
    study of mpi_bulk draws the paper's bulk-synchronous MPI, never its nonblocking MPI."""
    from types import SimpleNamespace

    from taskbench.studies.preset import paper_systems
    from taskbench.studies.presets.taskbench_paper import SYSTEMS
    assert paper_systems(SimpleNamespace(systems=["mpi_bulk", "native"])) == ("mpi_bulk_synchronous",)
    assert paper_systems(SimpleNamespace(systems=["native"])) == published.CONTEXT_SYSTEMS
    series = dict(SYSTEMS.published(paper_systems(SimpleNamespace(systems=["mpi_bulk", "mpi_p2p"]))))
    assert series == {"MPI bulk sync": [("stencil_1d", 8.961e-06)], "MPI": [("stencil_1d", 4.583e-06)]}
