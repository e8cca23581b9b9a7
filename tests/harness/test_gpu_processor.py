"""processor = "gpu" registry entries (docs/gpu.md): available only where the CUDA probe finds a
device, with its one-line reason otherwise; peaks keyed by (processor, cores), so a GPU system's
task slots meet the GPU's peak and a CPU system's cores the CPU's at the same count; the cores
column and the notes below the METG table, from synthetic runs in a temporary store."""

import subprocess
import sys

import pytest
from harness_helpers import REPO

from taskbench.errors import UserError
from taskbench.measure.analysis import analyze
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams, run_key
from taskbench.registry import Registry, entry_processors, gpu, read_registry_file
from taskbench.registry.locations import Layout
from taskbench.report.tables import floor_line, metg_table, notes_below_table
from taskbench.store import Store

NO_DEVICE = "no usable CUDA device (cuInit returned 100: no CUDA-capable device is detected)"


# Three entries of one executable: CPU, GPU, and MPI on the GPU.
ENTRIES = {"cpu": '[[system]]\nname = "cpusys"\nbinary = "present"\n',
           "gpu": '[[system]]\nname = "gpusys"\nbinary = "present"\ncores = 1\nprocessor = "gpu"\n'
                  '[[system]]\nname = "gpumpi"\nbinary = "present"\ncores = 1\nprocessor = "gpu"\n'
                  'launcher = "mpirun"\nranks = 4\n'}


@pytest.fixture
def layout(tmp_path):
    executable = tmp_path / "bin" / "present"
    executable.parent.mkdir()
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    for folder, text in ENTRIES.items():
        (tmp_path / "systems" / folder).mkdir(parents=True)
        (tmp_path / "systems" / folder / "system.toml").write_text(text)
    return Layout(executable.parent, tmp_path / "systems", {}, None, None, "build-dir")


@pytest.fixture
def probe_says(monkeypatch):
    """Sets what the CUDA probe answers, counting how often the registry asks."""
    asked = []

    def set_answer(answer):
        monkeypatch.setattr(gpu, "cuda_device_problem", lambda: asked.append(1) or answer)
        return asked
    return set_answer


def test_gpu_entry_is_unavailable_with_the_probes_reason(layout, probe_says):
    asked = probe_says(NO_DEVICE)
    registry = Registry(layout)
    s = registry.get("gpusys")
    assert (s.processor, s.available, s.reason) == ("gpu", False, NO_DEVICE)
    assert s.extra == {}  # a known key now, not an unknown one kept aside
    cpu = registry.get("cpusys")
    assert (cpu.processor, cpu.available, cpu.reason) == ("cpu", True, "")
    with pytest.raises(UserError) as exc:
        registry.require_available("gpusys")
    assert str(exc.value) == f"system 'gpusys' is not available: {NO_DEVICE}" and exc.value.exit_code == 4
    assert len(asked) == 2  # the two GPU entries; the CPU entry never probes


def test_gpu_entry_is_available_where_the_probe_finds_a_device(layout, probe_says, monkeypatch):
    probe_says("")
    s = Registry(layout).get("gpusys")
    assert s.available and s.reason == ""
    # An MPI entry on the GPU still needs its launcher first: that reason comes before the probe's.
    monkeypatch.setenv("PATH", "/nonexistent")
    assert Registry(layout).get("gpumpi").reason.startswith("no openmpi launcher found on PATH")


def test_on_the_cuda_standin_a_gpu_entry_runs_but_never_measures(layout, probe_says, monkeypatch, tmp_path):
    """TASKBENCH_CUDA_STANDIN: the GPU entries run the stand-in's builds there, with no device (the
    fault matrix on machines without a GPU), and the commands that measure refuse them."""
    asked = probe_says(NO_DEVICE)
    standin = tmp_path / "standin"
    standin.mkdir()
    (standin / "present").write_text("#!/bin/sh\n")
    (standin / "present").chmod(0o755)
    monkeypatch.setenv(gpu.STANDIN_VARIABLE, str(standin))
    registry = Registry(layout)
    s = registry.get("gpusys")
    assert (s.available, s.standin, s.binary_path) == (True, True, standin / "present") and asked == []
    assert "on the CUDA stand-in" in s.note and "never a figure" in s.note
    assert registry.require_available("gpusys", figures=False) is s
    with pytest.raises(UserError) as exc:
        registry.require_available("gpusys")
    assert "runs on the CUDA stand-in (TASKBENCH_CUDA_STANDIN is set), which measures nothing" in str(exc.value)
    assert exc.value.exit_code == 4
    cpu = registry.get("cpusys")
    assert not cpu.standin and cpu.binary_path == layout.bin_dir / "present"
    (standin / "present").unlink()
    assert Registry(layout).get("gpusys").reason.startswith("no stand-in build (present not in ")


def test_processor_other_than_cpu_or_gpu_is_a_bad_entry(tmp_path):
    path = tmp_path / "system.toml"
    path.write_text('[[system]]\nname = "odd"\nprocessor = "tpu"\n')
    with pytest.raises(UserError) as exc:
        read_registry_file(path)
    assert str(exc.value) == f"{path}: system 'odd': 'processor' must be 'cpu' or 'gpu', not 'tpu'"
    assert exc.value.exit_code == 4


def test_the_repositorys_cuda_entries_are_gpu_systems():
    processors = entry_processors(REPO / "systems")
    assert {n: processors[n] for n in ("cuda", "cuda_graph", "mpi_cuda", "mpi_cuda_w4", "mpi_cuda_resident")} == \
        dict.fromkeys(("cuda", "cuda_graph", "mpi_cuda", "mpi_cuda_w4", "mpi_cuda_resident"), "gpu")
    assert processors["serial"] == processors["openmp_for"] == "cpu"


def test_probe_without_the_driver_and_probed_once_per_process(monkeypatch):
    assert gpu.probe("/nonexistent/libcuda.so.1") == \
        "no usable CUDA device (/nonexistent/libcuda.so.1, the NVIDIA driver, is not installed)"
    calls = []
    monkeypatch.setattr(gpu, "probe", lambda: calls.append(1) or NO_DEVICE)
    gpu.cuda_device_problem.cache_clear()
    try:
        assert [gpu.cuda_device_problem() for _ in range(3)] == [NO_DEVICE] * 3 and calls == [1]
    finally:
        gpu.cuda_device_problem.cache_clear()  # the next caller probes the real driver


def test_probe_reports_cuinit_failure_in_one_line():
    """The build's stand-in driver (its cuInit says CUDA_ERROR_NO_DEVICE), probed in a process of
    its own: loaded here, its soname would answer this process's later libcuda.so.1 probes."""
    standin = REPO / "build" / "cuda-standin" / "libcuda.so.1"
    if not standin.is_file():
        pytest.skip(f"{standin} is built only where the Legion component is on and there is no driver")
    out = subprocess.run([sys.executable, "-c", "import sys; from taskbench.registry import gpu; "
                          "print(gpu.probe(sys.argv[1]))", str(standin)], capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO / "python")}, check=True)
    assert out.stdout == ("no usable CUDA device (cuInit returned 100: no CUDA-capable device is detected "
                          "(taskbench's driver stand-in))\n")


# -- peaks and tables ------------------------------------------------------------------------------

CPU_PEAK, GPU_PEAK = 100e9, 400e9  # at 16 cores / 16 GPU slots
FLOOR = {"workers": 16, "width": 16, "exchange_row_ns": 80.0, "no_runtime_row_ns": 200.0,
         "metg_lower_bound_seconds": 1e-6}


def _run(campaign, system, iterations, rate, granularity, key=None, **extra):
    return {"campaign": campaign, "key": key or run_key(system, iterations, 0), "system": system,
            "status": "ok", "iter": iterations, "rep": 0, "cores": 16, "kernel": "compute_bound",
            "machine_id": "m", "flops_per_second": rate, "granularity_seconds": granularity,
            "elapsed_seconds": 0.1, "background_load": 0.0, **extra}


@pytest.fixture
def store(layout, monkeypatch, tmp_path):
    """Stored peak runs at 16: the CPU's 100 GFLOP/s, the GPU's 400 GFLOP/s (gpusys, a GPU entry
    of the registry). Campaign "mixed": cpusys and gpusys each reach 100% then 25% of their own
    peak (against the other's, gpusys would read 400%, cpusys 25% at best); "gpuonly": gpumpi."""
    monkeypatch.setenv("TASKBENCH_SYSTEMS_DIR", str(layout.systems_dir))
    s = Store(tmp_path / "tb.db")
    s.create_campaign("peaks", "peak", {}, {}, "m", None, {})
    s.add_run(_run("peaks", "cpusys", 1 << 18, CPU_PEAK, 1e-3, "p-cpu"))
    s.add_run(_run("peaks", "gpusys", 1 << 22, GPU_PEAK, 2e-2, "p-gpu"))
    mixed = SweepParams(systems=["cpusys", "gpusys", "gone"], reps=1, kernel="compute_bound", width=16)
    s.create_campaign("mixed", "metg", mixed.to_dict(), {"no_runtime_floor": FLOOR}, "m", None, {})
    for system, peak in (("cpusys", CPU_PEAK), ("gpusys", GPU_PEAK)):
        s.add_run(_run("mixed", system, 1024, peak, 1e-4))
        s.add_run(_run("mixed", system, 64, peak / 4, 1e-5))
    # A system no longer in the registry is a CPU system: the CPU peak at 16 cores.
    s.add_run(_run("mixed", "gone", 1024, CPU_PEAK / 2, 1e-4))
    gpu_only = SweepParams(systems=["gpumpi"], reps=1, kernel="compute_bound", width=16)
    s.create_campaign("gpuonly", "metg", gpu_only.to_dict(), {"no_runtime_floor": FLOOR}, "m", None, {})
    s.add_run(_run("gpuonly", "gpumpi", 1024, GPU_PEAK / 2, 1e-4, launcher="mpirun", ranks=4,
                   threads_per_rank=4))
    yield s
    s.close()


def test_each_system_meets_the_peak_of_its_own_processor(store):
    a = analyze(store, "mixed")
    assert a.peaks.peak(16, "cpu") == CPU_PEAK and a.peaks.peak(16, "gpu") == GPU_PEAK
    efficiencies = {name: [(pt.iter, pt.efficiency) for pt in curve.reps[0]] for name, curve in a.curves.items()}
    assert efficiencies == {"cpusys": [(64, 0.25), (1024, 1.0)], "gpusys": [(64, 0.25), (1024, 1.0)],
                            "gone": [(1024, 0.5)]}
    assert (a.curves["cpusys"].peak, a.curves["gpusys"].peak, a.curves["gone"].peak) == (CPU_PEAK, GPU_PEAK, CPU_PEAK)
    assert [c.processor for c in a.curves.values()] == ["cpu", "gpu", "cpu"]
    assert a.peaks.describe("gpu") == {16: {"stored": GPU_PEAK, "observed": GPU_PEAK, "peak": GPU_PEAK, "source":
                                            "stored `taskbench peak` run of campaign peaks (gpusys -iter 4194304)"}}


def test_a_gpu_run_never_raises_the_cpu_peak():
    table = PeakTable("compute_bound", processors={"gpusys": "gpu"})
    table.observe({"status": "ok", "system": "gpusys", "cores": 16, "flops_per_second": GPU_PEAK, "iter": 1024,
                   "campaign": "c"})
    assert table.peak(16) is None and table.peak(16, "gpu") == GPU_PEAK
    assert table.peak_for("cpusys", 16) is None and table.peak_for("gpusys", 16) == GPU_PEAK
    table.observe({"status": "ok", "system": "cpusys", "cores": 16, "flops_per_second": CPU_PEAK})
    assert table.peak_for("cpusys", 16) == CPU_PEAK and table.peak_for("gpusys", 16) == GPU_PEAK
    assert table.source(16, "gpu") == "campaign's best run (gpusys -iter 1024)"


def test_tables_show_gpu_slots_and_each_processors_peak(store):
    a = analyze(store, "mixed")
    _, rows = metg_table(a)
    assert [(r[0], r[1], r[6]) for r in rows] == [("cpusys", "16", "100 GFLOP/s"),
                                                  ("gpusys", "16 GPU slots", "400 GFLOP/s"),
                                                  ("gone", "16", "100 GFLOP/s")]
    # Where efficiency crosses 50%, 2/3 of the way from 1.0 to 0.25, linearly in log(work per task):
    # from 1e-4 s (100% of 1e-4 s) to 2.5e-6 s (25% of 1e-5 s); METG = that work / 50%.
    metg = 1e-4 * 0.025 ** (2 / 3) / 0.5
    assert notes_below_table(a) == [
        "peak with 16 cores: 100 GFLOP/s, from the stored `taskbench peak` run of campaign peaks (cpusys -iter 262144)",
        "peak with 16 GPU slots: 400 GFLOP/s, from the stored `taskbench peak` run of campaign peaks "
        "(gpusys -iter 4194304)",
        # the floor bounds the CPU systems only: gpusys, with the same METG, is not in it
        f"no-runtime floor: METG(50%) 1.00 µs at width 16 (16 pinned threads, 200 ns per row); "
        f"METG / floor: cpusys {metg / 1e-6:.1f}x, gone at most 100.0x",
        "intervals hold for a rerun here: ±6.3% between campaigns, the drift of this project's VMs "
        "(none measured here yet)"]


def test_an_mpi_gpu_system_shows_its_layout_and_no_floor(store):
    a = analyze(store, "gpuonly")
    assert a.curves["gpumpi"].cores_text == "16 GPU slots (4 x 4)"
    assert metg_table(a)[1][0][:2] == ["gpumpi", "16 GPU slots (4 x 4)"]
    assert floor_line(a) is None  # pinned CPU threads bound no GPU system
