"""The SC20 paper's published results, derived by the project's own parser with the paper's
METG definition: the shipped data sets are what the script writes from the raw logs (where
they are here), and they give the figures the paper's text states."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from taskbench.reference import paper_metg, sc20, task_bench_log

REPO = Path(__file__).resolve().parents[2]
RAW = REPO.parent / "shared" / "reference" / "sc20-results"  # development machines only


def block(iterations: int, tasks: int, flops: float, elapsed: float | None) -> str:
    end = f"Elapsed Time {elapsed:e} seconds\nFLOP/s 0\n" if elapsed is not None else ""
    return (f"Running Task Benchmark\n  Configuration:\n    Task Graph 1:\n      Kernel:\n        Type: compute_bound\n"
            f"        Iterations: {iterations}\nTotal Tasks {tasks}\nTotal Dependencies 0\nTotal FLOPs {flops:d}\n"
            f"Total Bytes 0\n{end}")


def test_a_log_is_read_run_by_run_and_a_run_cut_short_is_left_out():
    text = block(1024, 320, 10**9, 2.0) + block(1024, 320, 10**9, 4.0) + block(512, 320, 5 * 10**8, None)
    assert task_bench_log.runs(text) == [task_bench_log.LogRun((1024,), 320, 1e9, 2.0),
                                         task_bench_log.LogRun((1024,), 320, 1e9, 4.0)]


def test_the_paper_takes_the_mean_and_interpolates_to_the_next_smaller_size():
    peak = 1e9  # FLOP/s per node; 1 node of 4 cores, 400 tasks
    runs = [task_bench_log.LogRun((it,), 400, flops, t) for it, flops, t in [
        (4096, 8e9, 8.0), (4096, 8e9, 8.0),         # efficiency 1.0, 80 ms
        (2048, 4e9, 6.0), (2048, 4e9, 10.0),        # mean 8 s: 0.5 exactly, 80 ms
        (1024, 2.5e8, 1.0),                         # 0.25, 10 ms
        (512, 1e9, 1.25),                           # 0.8 (a lucky small size), 12.5 ms
        (256, 5e7, 0.5)]]                           # 0.1, 5 ms
    points = paper_metg.curve(runs, nodes=1, peak=peak, cores_per_node=4)
    assert [p.iterations[0] for p in points] == [4096, 2048, 1024, 512, 256]
    assert [p.reps for p in points] == [2, 2, 1, 1, 1]
    assert [round(p.efficiency, 6) for p in points] == [1.0, 0.5, 0.25, 0.8, 0.1]
    # The smallest granularity at >= 50% is 512's (12.5 ms), interpolated towards 256's, the next
    # smaller size (not towards 1024's, whose granularity is nearer): 5 ms + 4/7 * 7.5 ms.
    assert paper_metg.metg(points) == pytest.approx(0.005 + (0.5 - 0.1) / (0.8 - 0.1) * 0.0075)
    assert paper_metg.metg(points[:3]) == pytest.approx(0.08)  # exactly 50% at 2048
    assert paper_metg.metg(points[2:3]) is None


@pytest.mark.parametrize("pattern_rows, expected", [
    # MPI (mpi_nonblock), stencil_1d, compute/ (paper Sec. V: 4.6 us at 1 node, up to 12 at 64, 28 at
    # 128 and 61 at 256); by hand from the raw logs with the paper's reduction: the figures below.
    (("sc20-compute", "stencil_1d", None, 1), 4.58e-6),
    (("sc20-compute", "stencil_1d", None, 64), 11.7e-6),
    (("sc20-compute", "stencil_1d", None, 128), 28.6e-6),
    (("sc20-compute", "stencil_1d", None, 256), 60.6e-6),
    # MPI, nearest, radix/ at 1 node: 0 dependencies 390 ns, 3 dependencies 4.6 us in the paper.
    (("sc20-radix", "nearest", "0", 1), 387e-9),
    (("sc20-radix", "nearest", "3", 1), 4.60e-6),
])
def test_the_shipped_data_gives_the_papers_mpi_figures(pattern_rows, expected):
    data_set, pattern, radix, nodes = pattern_rows
    rows = [r for r in sc20.shipped(data_set.removeprefix("sc20-")) if r["system"] == "mpi_nonblock"
            and r["ngraphs"] == 1 and r["pattern"] == pattern and r["nodes"] == nodes and r.get("radix") == radix]
    (row,) = rows
    assert row["label"] == "MPI"
    assert row["metg_seconds"] == pytest.approx(expected, rel=0.005)


def test_the_gpu_data_set_divides_by_the_peaks_the_paper_states():
    """Fig. 13 (Piz Daint): the paper's CUDA kernel reached 4.759e12 FLOP/s and the 12-core CPU
    5.726e11; each curve's best size comes within 1% of its processor's peak (w4 on the GPU,
    MPI on the CPU), and a GPU task's granularity counts the one GPU, not the CPU's cores."""
    curves = [r for r in sc20.shipped_curves("cuda_compute") if r["pattern"] == "stencil_1d"]
    best = {label: max(r["flops_per_second"] for r in curves if r["label"] == label)
            for label in ("MPI", "MPI+CUDA w1", "MPI+CUDA w4")}
    assert best["MPI+CUDA w4"] == pytest.approx(4.759e12, rel=0.01)
    assert best["MPI"] == pytest.approx(5.726e11, rel=0.01)
    assert best["MPI+CUDA w1"] < best["MPI+CUDA w4"]
    w1 = next(r for r in curves if r["label"] == "MPI+CUDA w1" and r["iterations"] == 131072)
    # 1000 steps of 1 task each on the one GPU: the granularity is the run's time per task
    assert w1["granularity_seconds"] == pytest.approx(w1["flops_per_step"] / w1["flops_per_second"], rel=0.002)


def test_the_communication_and_imbalance_data_sets_sweep_their_parameter():
    comm = {(r["comm"], r["nodes"]) for r in sc20.shipped("communication") if r["label"] == "MPI"}
    assert {("16", 64), ("256", 64), ("4096", 64), ("65536", 64)} <= comm
    imbalance = [r for r in sc20.shipped("imbalance") if r["label"] == "MPI" and r["nodes"] == 1]
    assert sorted(r["imbalance"] for r in imbalance) == ["0.0", "0.5", "1.0", "1.5", "2.0"]
    # The paper (Sec. V-G): imbalance puts an upper bound on MPI's efficiency at large granularities.
    top = {r["imbalance"]: r["largest_size_efficiency"] for r in imbalance}
    assert top["0.0"] > 0.95 and top["2.0"] < 0.8 * top["0.0"]


def test_the_published_systems_that_cannot_be_installed_here_have_rows():
    shown = {r["label"] for r in sc20.shipped("compute") if r["visible"] == "True" and r["metg_seconds"]}
    assert {*sc20.PUBLISHED_ONLY, "Spark", "StarPU", "TensorFlow", "MPI", "OpenMP task"} <= shown


@pytest.mark.skipif(not (RAW / "legend.csv").is_file(),
                    reason=f"the paper's raw logs are not here ({RAW}: development machines only)")
def test_the_script_writes_the_shipped_files_byte_for_byte(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "derive-reference.py"), str(RAW), "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(p.name for p in sc20.DATA.glob("sc20-*.csv")) and len(names) == 7
    for name in names:
        assert (tmp_path / name).read_bytes() == (sc20.DATA / name).read_bytes(), name


def test_taskbench_reference_prints_every_published_system_and_refuses_an_unknown_pattern():
    run = [sys.executable, "-m", "taskbench", "reference"]
    env = {"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}
    got = subprocess.run([*run, "--pattern", "stencil_1d"], capture_output=True, text=True, env=env, timeout=60)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].split("\t") == ["system", "published as", "its port here"] + [
        f"{n} node" + "s" * (n > 1) for n in (1, 2, 4, 8, 16, 32, 64, 128, 256)]
    mpi = next(l.split("\t") for l in lines if l.startswith("MPI\t"))
    assert mpi[1:4] == ["mpi_nonblock", "mpi_p2p, mpi_p2p_mpich, mpi_p2p_smpi", "4.58 µs"] and mpi[-1] == "60.6 µs"
    labels = {l.split("\t")[0] for l in lines[1:]}
    assert {"Chapel", "Charm++", "OmpSs", "PaRSEC DTD", "Regent", "Spark", "StarPU", "Swift/T", "TensorFlow",
            "X10"} <= labels
    assert "published (Cori, SC20)" in got.stderr
    bad = subprocess.run([*run, "--pattern", "stencil"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("taskbench: --pattern stencil: the compute data set has fft, nearest, no_comm, "
                                  "spread, stencil_1d")


@pytest.mark.skipif(not (RAW / "legend.csv").is_file(),
                    reason=f"the paper's raw logs are not here ({RAW}: development machines only)")
@pytest.mark.parametrize("log, nodes, paper_us, harness_us", [
    ("compute/mpi/mpi_nonblock_ngraphs_1_type_stencil_1d_nodes_1.log", 1, 4.58, 4.47),
    ("compute/mpi/mpi_nonblock_ngraphs_1_type_stencil_1d_nodes_64.log", 64, 11.7, 11.1),
    ("compute/mpi/mpi_nonblock_ngraphs_1_type_stencil_1d_nodes_128.log", 128, 28.6, 30.4),
    ("compute/mpi/mpi_nonblock_ngraphs_1_type_stencil_1d_nodes_256.log", 256, 60.6, 41.7),
    ("radix/mpi/mpi_nonblock_ngraphs_1_type_nearest_radix_0_nodes_1.log", 1, 0.387, 0.384),
    ("radix/mpi/mpi_nonblock_ngraphs_1_type_nearest_radix_3_nodes_1.log", 1, 4.60, 4.53),
])
def test_the_two_definitions_on_the_papers_mpi_logs(log, nodes, paper_us, harness_us):
    """docs/reference.md's table: the paper's reduction and the harness's (a METG per repetition,
    log-interpolated, their median) of the same raw logs."""
    from taskbench.measure.metg.methods import CurvePoint, median_metg, metg_of_curve
    runs = task_bench_log.runs((RAW / log).read_text())
    assert paper_metg.metg(paper_metg.curve(runs, nodes)) * 1e6 == pytest.approx(paper_us, rel=0.005)
    per_rep = [[CurvePoint(r.iterations[0], r.elapsed_seconds * nodes * 32 / r.tasks,
                           r.flops / r.elapsed_seconds / nodes / paper_metg.CORI_HASWELL_PEAK) for r in rep]
               for rep in task_bench_log.repetitions(runs).values()]
    median = median_metg([metg_of_curve(points, 0.5) for points in per_rep])
    assert median * 1e6 == pytest.approx(harness_us, rel=0.005)
