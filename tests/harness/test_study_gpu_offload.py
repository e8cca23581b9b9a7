"""`taskbench study gpu_offload` (the Task Bench paper's Fig. 13): the exact grid it plans (every
system at every -iter, width = the cores, mpi_p2p on a rank per core and the GPU systems at their
registry ranks), its table, findings and figure from runs stored in a temporary store (fastest
repetition, normalized size, 50% point, ratio to mpi_p2p, failures and unavailable systems with
their reasons), and the quick study run for real."""

import sqlite3

import pytest
from harness_helpers import FakeRegistry, FakeSystem

from taskbench import provenance
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout
from taskbench.store import Store
from taskbench.studies import PRESETS, execute, results
from taskbench.studies.presets import gpu_offload

NO_DEVICE = "no usable CUDA device (libcuda.so.1, the NVIDIA driver, is not installed)"
REGISTRY = FakeRegistry(*(FakeSystem(n) for n in ("mpi_p2p", "mpi_cuda", "mpi_cuda_w4", "cuda", "mpi_cuda_resident",
                                                  "native")),
                        FakeSystem("cuda_graph", False, NO_DEVICE))
QUICK_SIZES = [16, 256, 4096, 65536]
# The systems of the stored studies below, in the order they were asked for.
SYSTEMS = ("mpi_p2p", "mpi_cuda", "mpi_cuda_w4", "cuda_graph", "cuda")


def _plan(monkeypatch, quick, reps, systems=SYSTEMS, cores=16):
    monkeypatch.setattr(provenance, "available_cores", lambda: cores)
    return execute.campaign_params(gpu_offload.STUDY, REGISTRY, None, list(systems), quick, reps, 60.0, 0, "G")


def _flags(steps, width, iterations):
    return ["-steps", str(steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "compute_bound",
            "-iter", str(iterations)]


def test_registered_under_its_name():
    assert PRESETS["gpu_offload"] is gpu_offload.STUDY
    # The registry's members: the CPU reference, w1, w4, then the other GPU systems.
    assert gpu_offload.STUDY.default_systems(Registry(find_layout())) == [
        "mpi_p2p", "mpi_cuda", "mpi_cuda_w4", "cuda", "cuda_graph"]


def test_quick_grid_is_every_system_at_every_size_same_width(monkeypatch):
    params = _plan(monkeypatch, quick=True, reps=2)
    assert params["unavailable"] == {"cuda_graph": NO_DEVICE}
    grid = params["grid"]
    ran = ["mpi_p2p", "mpi_cuda", "mpi_cuda_w4", "cuda"]
    assert len(grid) == len(ran) * len(QUICK_SIZES) * 2
    planned = sorted((r["system"], r["point"]["iter"], r["rep"]) for r in grid)
    assert planned == sorted((s, it, rep) for s in ran for it in QUICK_SIZES for rep in (0, 1))
    for run in grid:
        it = run["point"]["iter"]
        assert run["flags"] == _flags(100, 16, it) and run["breakdown"] is False
        # mpi_p2p: a rank per core; the GPU systems keep their registry ranks (w1: 1, w4: 4).
        assert run["cores"] == (16 if run["system"] == "mpi_p2p" else None), run


def test_full_grid_spans_2_to_the_4_to_2_to_the_20(monkeypatch):
    grid = _plan(monkeypatch, quick=False, reps=3, cores=2)["grid"]
    sizes = [1 << k for k in range(4, 21)]
    assert len(grid) == 4 * len(sizes) * 3
    assert sorted({r["point"]["iter"] for r in grid}) == sizes
    assert all(r["flags"] == _flags(1000, 2, r["point"]["iter"]) for r in grid)


def test_other_cpu_systems_get_all_cores_and_gpu_ones_their_registry_ranks(monkeypatch):
    grid = _plan(monkeypatch, quick=True, reps=1, systems=("native", "mpi_cuda_resident"), cores=8)["grid"]
    assert {(r["system"], r["cores"]) for r in grid} == {("native", 8), ("mpi_cuda_resident", None)}


CUDA_FAILED = "exit code 4: taskbench: no usable CUDA device: CUDA driver version is insufficient"
# FLOP/s per (system, -iter, rep); a string is a failed run's reason.
STORED = {
    "mpi_p2p": {16: [1e9], 256: [6e9, 8e9], 4096: [10e9], 65536: [10e9]},
    "mpi_cuda": {16: [0.1e9], 256: [1e9], 4096: [25e9], 65536: [40e9]},
    "mpi_cuda_w4": {16: [0.05e9], 256: [0.5e9], 4096: [30e9], 65536: ["exit code 1: boom"]},
    "cuda": {it: [CUDA_FAILED] for it in QUICK_SIZES},
}
FLOPS = 1e9  # every run's work: elapsed = FLOPS / FLOP/s, so the fastest repetition has the most FLOP/s


def _run(system, iterations, rep, value):
    record = {"campaign": "G", "key": f"{system}/iter={iterations}/rep={rep}", "system": system, "rep": rep,
              "iter": iterations, "kernel": "compute_bound", "machine_id": "m", "background_load": 0.0}
    if isinstance(value, str):
        return {**record, "status": "failed", "reason": value}
    return {**record, "status": "ok", "flops": FLOPS, "elapsed_seconds": FLOPS / value, "flops_per_second": value}


@pytest.fixture
def stored(tmp_path, monkeypatch):
    params = _plan(monkeypatch, quick=True, reps=2)
    store = Store(tmp_path / "tb.db")
    store.create_campaign("G", "study", params, {}, "m", None, {})
    for system, sizes in STORED.items():
        for it, values in sizes.items():
            for rep, value in enumerate(values):
                store.add_run(_run(system, it, rep, value))
    yield results.load(store, "G")
    store.close()


def test_table_from_stored_runs(stored):
    columns, rows = gpu_offload.table(stored)
    assert columns == ["system", "-iter", "normalized size", "FLOP/s", "of its best", "vs mpi_p2p"]
    assert rows == [
        ["mpi_p2p", 16, "0.000244", "1.00 GFLOP/s", "10%", "1.00x"],
        ["mpi_p2p", 256, "0.00391", "8.00 GFLOP/s", "80%", "1.00x"],  # the faster of 2 repetitions
        ["mpi_p2p", 4096, "0.0625", "10.0 GFLOP/s", "100%", "1.00x"],
        ["mpi_p2p", 65536, "1", "10.0 GFLOP/s", "100%", "1.00x"],
        ["mpi_cuda", 16, "0.000244", "100 MFLOP/s", "0%", "0.10x"],
        ["mpi_cuda", 256, "0.00391", "1.00 GFLOP/s", "2%", "0.12x"],
        ["mpi_cuda", 4096, "0.0625", "25.0 GFLOP/s", "62%", "2.50x"],
        ["mpi_cuda", 65536, "1", "40.0 GFLOP/s", "100%", "4.00x"],
        ["mpi_cuda_w4", 16, "0.000244", "50.0 MFLOP/s", "0%", "0.05x"],
        ["mpi_cuda_w4", 256, "0.00391", "500 MFLOP/s", "2%", "0.06x"],
        ["mpi_cuda_w4", 4096, "0.0625", "30.0 GFLOP/s", "100%", "3.00x"],
        ["mpi_cuda_w4", 65536, "1", "failed: exit code 1: boom", "", ""],
        ["cuda_graph", "", "", f"not available: {NO_DEVICE}", "", ""],
        *[["cuda", it, n, f"failed: {CUDA_FAILED}", "", ""]
          for it, n in zip(QUICK_SIZES, ("0.000244", "0.00391", "0.0625", "1"))],
    ]


def test_findings_give_the_50_percent_size_and_the_ratio_to_mpi_p2p(stored):
    assert gpu_offload.findings(stored) == [
        "mpi_p2p: best 10.0 GFLOP/s at -iter 4096; 50% of it from normalized size 0.00391 (-iter 256)",
        "mpi_cuda: best 40.0 GFLOP/s at -iter 65536; 50% of it from normalized size 0.0625 (-iter 4096); "
        "its best is 4.00x mpi_p2p's (10.0 GFLOP/s)",
        "mpi_cuda_w4: best 30.0 GFLOP/s at -iter 4096; 50% of it from normalized size 0.0625 (-iter 4096); "
        "its best is 3.00x mpi_p2p's (10.0 GFLOP/s)",
        f"cuda_graph: not available here, no figures: {NO_DEVICE}",
        f"cuda: no FLOP/s figure at any size (failed: {CUDA_FAILED})",
        "mpi_cuda_w4 (4 ranks per GPU) vs mpi_cuda (1): best 0.75x; 50% of its own best from normalized size 0.0625 "
        "against 0.0625 (the paper: w4 peaks higher and drops faster at small sizes)",
    ]


def test_findings_without_mpi_p2p_say_there_is_nothing_to_compare_with(tmp_path, monkeypatch):
    params = _plan(monkeypatch, quick=True, reps=1, systems=("mpi_cuda",))
    store = Store(tmp_path / "tb.db")
    store.create_campaign("G", "study", params, {}, "m", None, {})
    store.add_run(_run("mpi_cuda", 16, 0, 2e9))
    result = results.load(store, "G")
    assert gpu_offload.findings(result) == [
        "mpi_cuda: best 2.00 GFLOP/s at -iter 16; 50% of it from normalized size 0.000244 (-iter 16); "
        "no mpi_p2p figure to compare with"]
    assert gpu_offload.table(result)[1][0] == ["mpi_cuda", 16, "0.000244", "2.00 GFLOP/s", "100%", "—"]
    assert gpu_offload.table(result)[1][1] == ["mpi_cuda", 256, "0.00391", "not run yet", "", ""]
    store.close()


def test_figure_draws_flops_against_normalized_size_and_names_what_is_missing(stored):
    fig = gpu_offload.figure(stored)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    paper = {label for label in lines if label.startswith("published (Piz Daint, SC20): ")}
    assert paper == {f"published (Piz Daint, SC20): {s}" for s in ("MPI", "MPI+CUDA w1", "MPI+CUDA w4")}
    assert max(lines["published (Piz Daint, SC20): MPI+CUDA w4"].get_ydata()) == 4.759e12
    assert set(lines) - paper == {"mpi_p2p", "mpi_cuda", "mpi_cuda_w4"}
    assert list(lines["mpi_cuda"].get_xdata()) == [1 / 4096, 1 / 256, 1 / 16, 1]
    assert list(lines["mpi_cuda"].get_ydata()) == [0.1e9, 1e9, 25e9, 40e9]
    assert list(lines["mpi_cuda_w4"].get_xdata()) == [1 / 4096, 1 / 256, 1 / 16]  # its failed point is left out
    assert ax.get_title().splitlines()[2:] == ["not drawn, not available here: cuda_graph",
                                               "not drawn, no run succeeded: cuda"]


def test_quick_study_runs_here_and_keeps_every_system(cli, bin_dir):
    reasons = {s.name: s.reason for s in Registry(find_layout())}
    if reasons["mpi_p2p"]:
        pytest.skip(f"mpi_p2p cannot run here: {reasons['mpi_p2p']}")
    code, out, err = cli("-q", "study", "gpu_offload", "--quick", "--campaign", "g")
    assert code == 0, err
    rows = [line.split("\t") for line in out.strip("\n").splitlines()]
    assert rows[0] == ["system", "-iter", "normalized size", "FLOP/s", "of its best", "vs mpi_p2p"]
    by_system = {}
    for row in rows[1:]:
        by_system.setdefault(row[0], []).append(row)
    members = gpu_offload.STUDY.default_systems(Registry(find_layout()))
    assert list(by_system) == members
    ran = [s for s in members if not reasons[s]]
    for system, found in by_system.items():
        if reasons[system]:
            assert found == [[system, "", "", f"not available: {reasons[system]}", "", ""]]
            continue
        # -q: the figures as numbers (sizes, FLOP/s, fractions)
        assert [(int(r[1]), float(r[2])) for r in found] == [(16, 16 / 65536), (256, 256 / 65536),
                                                             (4096, 4096 / 65536), (65536, 1.0)]
        assert all(float(r[3]) > 0 and 0 < float(r[4]) <= 1 and float(r[5]) > 0 for r in found), found
        assert "1.0" in [r[4] for r in found]
    assert [r[5] for r in by_system["mpi_p2p"]] == ["1.0"] * 4  # its own reference
    con = sqlite3.connect(cli.db)
    assert con.execute("SELECT count(*), count(DISTINCT key) FROM runs WHERE campaign='g'").fetchone() == (
        4 * len(ran), 4 * len(ran))
    assert {r[0] for r in con.execute("SELECT cores FROM runs WHERE campaign='g' AND system='mpi_p2p'")} == {
        provenance.available_cores()}
