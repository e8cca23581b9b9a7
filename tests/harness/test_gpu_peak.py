"""`taskbench peak --gpu` (docs/gpu.md): the cuda system at each of --widths task slots with
exactly the planned flags, stored as a peak campaign; without a usable GPU one line, exit 4 and
nothing stored; its flags' misuse is a usage error."""

import shutil

import pytest
from harness_helpers import REPO

from taskbench.measure.peak.runs import GPU_ITER_FACTOR, GPU_STEPS, peak_flags
from taskbench.measure.kernels import kernel_info
from taskbench.registry import gpu
from taskbench.store import Store

NO_DEVICE = "no usable CUDA device (libcuda.so.1, the NVIDIA driver, is not installed)"


@pytest.fixture
def cuda_registry(tmp_path, monkeypatch, bin_dir):
    """A registry of the repository's cuda entries only (resolving every system is slow)."""
    if not (bin_dir / "cuda").is_file():
        pytest.skip("build/bin/cuda is missing: the CUDA component is off in this build")
    root = tmp_path / "systems" / "cuda"
    root.mkdir(parents=True)
    shutil.copy(REPO / "systems" / "cuda" / "system.toml", root / "system.toml")
    monkeypatch.setenv("TASKBENCH_SYSTEMS_DIR", str(root.parent))


def test_without_a_gpu_one_line_exit_4_and_nothing_stored(cli, cuda_registry, monkeypatch):
    monkeypatch.setattr(gpu, "cuda_device_problem", lambda: NO_DEVICE)
    code, out, err = cli("peak", "--gpu")
    assert (code, out, err) == (4, "", f"taskbench: peak --gpu: {NO_DEVICE}\n")
    assert not cli.db.exists()


def test_misused_flags_are_usage_errors(cli):
    assert cli("peak", "--gpu", "--cores", "2") == (
        2, "", "taskbench: --cores is for a CPU peak: `taskbench peak --gpu` runs cuda at each of --widths "
               "task slots\n")
    assert cli("peak", "--widths", "16") == (2, "", "taskbench: --widths is for --gpu (a CPU peak's counts are "
                                                    "--cores)\n")
    assert cli("peak", "--gpu", "--widths", "0,8") == (
        2, "", "taskbench: --widths 0,8: expected comma-separated positive widths, e.g. 16,64\n")
    assert not cli.db.exists()


def test_peak_flags():
    big = kernel_info("compute_bound").start_iter * GPU_ITER_FACTOR
    assert (big, GPU_STEPS) == (1 << 22, 20)
    assert peak_flags("compute_bound", 16, GPU_STEPS, big) == [
        "-steps", "20", "-width", "16", "-type", "trivial", "-kernel", "compute_bound", "-iter", "4194304"]
    assert peak_flags("memory_bound", 4, 100, 4096) == [
        "-steps", "100", "-width", "4", "-type", "trivial", "-kernel", "memory_bound", "-iter", "4096",
        "-scratch", str(1 << 20)]


def test_gpu_peak_runs_cuda_at_each_width_with_the_planned_flags(cli, cuda_registry, monkeypatch):
    """The probe says yes, so the real cuda binary runs: here (no driver) it exits 4 and the
    runs are stored as failed, none of them a peak; on a GPU they are the peak runs."""
    monkeypatch.setattr(gpu, "cuda_device_problem", lambda: "")
    code, out, err = cli("peak", "--gpu", "--widths", "64,16", "--reps", "1")
    store = Store(cli.db)
    try:
        [campaign] = store.campaigns("peak")
        runs = store.runs(campaign["name"])
        assert campaign["name"].startswith("peak-gpu-compute_bound-")
        assert {k: campaign["params"][k] for k in ("systems", "cores", "iter", "steps", "reps")} == {
            "systems": ["cuda"], "cores": [16, 64], "iter": 1 << 22, "steps": 20, "reps": 1}
        assert [(r["system"], r["key"], r["flags"]) for r in runs] == [
            ("cuda", f"cuda/cores={w}/rep=0", ["-steps", "20", "-width", str(w), "-type", "trivial", "-kernel",
                                              "compute_bound", "-iter", "4194304"])
            for w in (16, 64)]
        failed = [r for r in runs if r["status"] != "ok"]
        assert code == (3 if failed else 0)
        assert all(r["reason"].startswith("exit code 4: taskbench: no usable CUDA device") for r in failed)
        assert len(store.peak_runs("compute_bound", runs[0]["machine_id"])) == len(runs) - len(failed)
        assert out.splitlines()[0] == "system\tGPU slots\tbest\tbest per slot\tmedian\truns"
    finally:
        store.close()


def test_a_cpu_peak_refuses_a_gpu_system(cli, cuda_registry, monkeypatch):
    monkeypatch.setattr(gpu, "cuda_device_problem", lambda: "")
    assert cli("peak", "--systems", "cuda", "--cores", "1") == (
        2, "", "taskbench: --systems cuda: cuda run on the GPU, whose peak is `taskbench peak --gpu --widths ...`\n")
    assert not cli.db.exists()
