"""`taskbench study scaling`: the weak/strong grid and the METG-vs-cores sweeps it plans (exact
runs per core count and width, a sweep per core count on that many cores), and its table, findings
and figure computed from runs stored in a temporary store: METG per (system, cores), the
no-runtime floor at each core count, and the 100% at C cores taken from C-core runs only."""

import pytest
from harness_helpers import FakeRegistry, FakeSystem

from taskbench import provenance
from taskbench.launch import LaunchOptions
from taskbench.measure.sweep.campaign import sweep_options
from taskbench.measure.sweep.params import SweepParams, run_key
from taskbench.store import Store
from taskbench.studies import execute, results
from taskbench.studies.presets import scaling

REGISTRY = FakeRegistry(FakeSystem("native"), FakeSystem("openmp_for"), FakeSystem("mpi_p2p"),
                        FakeSystem("gone", False, "binary missing"))


def _plan(monkeypatch, cores, quick, reps, systems=("native", "openmp_for", "gone")):
    monkeypatch.setattr(provenance, "available_cores", lambda: cores)
    return execute.campaign_params(scaling.STUDY, REGISTRY, None, list(systems), quick, reps, 60.0, 0, "P")


def test_grid_has_the_exact_runs_per_core_count_and_width(monkeypatch):
    params = _plan(monkeypatch, 4, quick=True, reps=3)
    assert params["unavailable"] == {"gone": "binary missing"}
    grid = params["grid"]
    assert len(grid) == 2 * 2 * 3 * 2 * 3  # modes x -iter x core counts x systems x reps
    count = {}
    for run in grid:
        width = run["flags"][run["flags"].index("-width") + 1]
        where = (run["point"]["mode"], run["cores"], width)
        count[where] = count.get(where, 0) + 1
        assert run["point"]["cores"] == run["cores"] and run["system"] in ("native", "openmp_for")
    # Weak: a column per core. Strong: every core count runs the 4-wide graph. 2 sizes x 2 systems x 3 reps.
    assert count == {("weak", 1, "1"): 12, ("weak", 2, "2"): 12, ("weak", 4, "4"): 12,
                     ("strong", 1, "4"): 12, ("strong", 2, "4"): 12, ("strong", 4, "4"): 12}


def test_a_metg_sweep_per_core_count_width_cores_on_as_many_cores(monkeypatch):
    params = _plan(monkeypatch, 4, quick=True, reps=3)
    sweeps = [(s["campaign"], s["value"], SweepParams.from_dict(s["params"])) for s in params["sweeps"]]
    assert [(name, value) for name, value, _ in sweeps] == [("P-cores1", 1), ("P-cores2", 2), ("P-cores4", 4)]
    for _, cores, p in sweeps:
        assert (p.systems, p.cores, p.width, p.pattern, p.kernel) == (
            ["native", "openmp_for"], cores, cores, "stencil_1d", "compute_bound")
        assert (p.steps, p.reps, p.tries, p.threshold) == (100, 1, 1, 0.5)
        assert p.flags(64) == ["-steps", "100", "-width", str(cores), "-type", "stencil_1d",
                               "-kernel", "compute_bound", "-iter", "64"]
    full = _plan(monkeypatch, 2, quick=False, reps=5)
    assert [(s["campaign"], s["params"]["steps"], s["params"]["reps"], s["params"]["cores"])
            for s in full["sweeps"]] == [("P-cores1", 1000, 3, 1), ("P-cores2", 1000, 3, 2)]
    assert len(full["grid"]) == 2 * 3 * 2 * 2 * 5  # the full grid has 3 sizes, 5 repetitions


def test_sweep_runs_mpi_systems_on_ranks_and_the_others_on_threads():
    class Mpi:
        is_mpi = True

    class Local:
        is_mpi = False

    on_two = SweepParams(systems=["x"], cores=2)
    assert sweep_options(Mpi, on_two) == LaunchOptions(ranks=2)
    assert sweep_options(Local, on_two) == LaunchOptions(threads_per_rank=2)
    plain = SweepParams(systems=["x"], ranks=3, threads_per_rank=2, launcher="srun")
    assert sweep_options(Mpi, plain) == LaunchOptions(ranks=3, threads_per_rank=2, launcher="srun")


def _run(campaign, system, iterations, cores, flops_per_second, granularity, kind_key=None):
    return {"campaign": campaign, "key": kind_key or run_key(system, iterations, 0), "system": system,
            "status": "ok", "iter": iterations, "rep": 0, "cores": cores, "kernel": "compute_bound",
            "machine_id": "m", "flops_per_second": flops_per_second, "granularity_seconds": granularity,
            "elapsed_seconds": 0.1, "background_load": 0.0}


FLOOR = {"workers": 2, "width": 2, "exchange_row_ns": 80.0, "no_runtime_row_ns": 200.0,
         "metg_lower_bound_seconds": 4e-7}


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """A scaling study on 2 cores whose sweeps hold fixed runs: native reaches 50% on 1 and 2
    cores; openmp_for never does on 1 core and has not run on 2; a stored 2-core peak run four
    times the 1-core one, which must not set the 1-core 100%."""
    params = _plan(monkeypatch, 2, quick=True, reps=1)
    store = Store(tmp_path / "tb.db")
    store.create_campaign("P", "study", params, {}, "m", None, {})
    for sweep in params["sweeps"]:
        store.create_campaign(sweep["campaign"], "metg", sweep["params"], {}, "m", None, {})
    store.create_campaign("peaks", "peak", {}, {}, "m", None, {})
    store.add_run(_run("peaks", "native", 1 << 16, 1, 1e9, 1e-4, "p1"))
    store.add_run(_run("peaks", "native", 1 << 16, 2, 4e9, 1e-4, "p2"))
    # 1 core: 100% from the 1-core peak run (1e9): efficiency 1.0 then 0.25.
    store.add_run(_run("P-cores1", "native", 1024, 1, 1e9, 1e-5))
    store.add_run(_run("P-cores1", "native", 64, 1, 0.25e9, 1e-6))
    store.add_run(_run("P-cores1", "openmp_for", 1024, 1, 0.3e9, 1e-5))
    # 2 cores: 100% from the 2-core peak run (4e9): efficiency 1.0 then 0.25.
    store.add_run(_run("P-cores2", "native", 1024, 2, 4e9, 2e-5))
    store.add_run(_run("P-cores2", "native", 64, 2, 1e9, 2e-6))
    store.annotate_campaign_machine("P-cores2", "no_runtime_floor", FLOOR)
    yield store
    store.close()


# Where efficiency crosses 50%, two thirds of the way from 1.0 to 0.25 linearly in log(work per
# task), from 1e-5 s of work (100% of 1e-5 s) to 2.5e-7 s (25% of 1e-6 s); METG = that work / 50%.
METG_1 = 1e-5 * 0.025 ** (2 / 3) / 0.5
METG_2 = 2e-5 * 0.025 ** (2 / 3) / 0.5


def test_metg_per_system_and_core_count_from_the_stored_runs(stored):
    result = results.load(stored, "P")
    assert scaling.metg_points(result)["native"] == [(1, pytest.approx(METG_1)), (2, pytest.approx(METG_2))]
    assert scaling.metg_points(result)["openmp_for"] == []
    assert scaling.floor_points(result) == [(2, 4e-7)]
    columns, rows = scaling.table(result)
    assert columns == ["measure", "-iter", "system", "on 1 core", "on 2 cores", "efficiency on 2"]
    assert rows[-4:] == [
        ["METG(50%)", "", "native", "1.71 µs", "3.42 µs (8.5x floor)", ""],
        ["METG(50%)", "", "openmp_for", "no METG (best 30%)", "not run yet", ""],
        ["METG(50%)", "", "gone", "not available: binary missing", "not available: binary missing", ""],
        ["METG(50%)", "", "no-runtime floor", "— (one worker exchanges nothing)", "400 ns", ""]]
    assert rows[0] == ["weak", 1024, "native", "not run yet", "not run yet", "—"]


def test_the_100_percent_at_c_cores_comes_from_c_core_runs_only(stored):
    result = results.load(stored, "P")
    one, two = result.metg.analyses["cores1"][0], result.metg.analyses["cores2"][0]
    # The 2-core peak run (4e9) would put every 1-core run under 50%: it is not the 1-core 100%.
    assert one.peaks.peak(1) == 1e9 and two.peaks.peak(2) == 4e9
    assert one.curves["native"].peak == 1e9 and two.curves["native"].peak == 4e9
    lines = scaling.findings(result)
    assert lines[-4:] == [
        "METG(50%) on 1 core: native 1.71 µs; no floor (one worker exchanges nothing)",
        "100% on 1 core (P-cores1): stored `taskbench peak` run of campaign peaks (native -iter 65536)",
        "METG(50%) on 2 cores: native 3.42 µs, 8.5x the floor; floor 400 ns (2 pinned threads, 200 ns per row)",
        "100% on 2 cores (P-cores2): stored `taskbench peak` run of campaign peaks (native -iter 65536)"]


def test_figure_draws_metg_per_system_and_the_floor_beside_them(stored):
    fig = scaling.figure(results.load(stored, "P"))
    assert len(fig.axes) == 4
    lines = {line.get_label(): line for line in fig.axes[2].get_lines()}
    assert set(lines) == {"native METG", "no-runtime floor"}
    # The paper's Fig. 9a against Cori nodes, in a panel of its own: nodes are not this machine's cores.
    published = {line.get_label(): line for line in fig.axes[3].get_lines()}
    assert set(published) == {"published (Cori, SC20): MPI", "published (Cori, SC20): Charm++",
                              "published (Cori, SC20): OpenMP task"}
    assert list(published["published (Cori, SC20): MPI"].get_xdata()) == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert fig.axes[3].get_xlabel() == "Cori nodes (32 cores each)"
    assert list(lines["native METG"].get_xdata()) == [1, 2]
    assert list(lines["native METG"].get_ydata()) == pytest.approx([METG_1, METG_2])
    assert (list(lines["no-runtime floor"].get_xdata()), list(lines["no-runtime floor"].get_ydata())) == ([2], [4e-7])
