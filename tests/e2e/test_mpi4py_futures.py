"""mpi4py_futures: mpi4py.futures' MPIPoolExecutor on the ranks Open MPI's mpirun starts (rank 0
the driver, the others the pool's workers), as the harness's mpirun launcher starts it: every
pattern in one run (graphs side by side, -and) against serial on 3 and 2 ranks and as a
singleton, other kernels and 1 MiB outputs, the fault switch (corrupt, kill, and hang through
the harness) with nothing left running, -expect-ranks, and a missing mpi4py."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time

import pytest

from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     built_systems, every_pattern, serial_totals, totals)

sys.path.insert(0, str(ROOT / "python"))
from taskbench.launch.mpi_common import LAUNCHER_NAMES  # noqa: E402

EXE = BIN / "mpi4py_futures"


def mpirun() -> str:
    found = next((shutil.which(name) for name in LAUNCHER_NAMES["openmpi"] if shutil.which(name)), None)
    if found is None:
        pytest.skip("Open MPI's mpirun is not installed")
    return found


def require():
    if "mpi4py_futures" not in built_systems():
        pytest.skip(f"mpi4py_futures is not built in {BUILD}")
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not installed (scripts/install-deps.sh, or pip install 'taskbench[mpi4py]')")


def run(ranks, args, marker, extra_env=None, timeout=180):
    """ranks processes of build/bin/mpi4py_futures under mpirun, as the harness starts them (0:
    the binary alone, a singleton)."""
    env = {k: v for k, v in os.environ.items() if k != "TASKBENCH_FAULT"}
    # Open MPI refuses to run as root without these.
    env.update({PROBE: marker, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                **(extra_env or {})})
    argv = [str(EXE), *args]
    if ranks:
        argv = [mpirun(), "--oversubscribe", "-np", str(ranks), *argv, "-expect-ranks", str(ranks)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.parametrize("ranks", [3, 2, 0], ids=["2_workers", "1_worker", "singleton"])
def test_every_pattern_equals_serial(ranks, probe):
    require()
    args = every_pattern()
    got = run(ranks, args, probe)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs(probe):
    require()
    got = run(3, OTHER_KERNELS, probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


def test_fault_switch_fails_validation(probe):
    """The worker rank that runs a consumer of the corrupt output fails validation and ends
    with 3 (the core's line), as a C++ MPI rank does; mpirun then stops the job with that status."""
    require()
    assert_validation_failed(run(3, FAULT_GRAPHS, probe, CORRUPTED))


def test_a_killed_worker_rank_fails_the_run_promptly(probe):
    """mpirun sees the worker rank die and ends the job (the harness's diagnosis reads its line)."""
    require()
    start = time.monotonic()
    got = run(3, ["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "100000"],
              probe, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=90)
    assert time.monotonic() - start < 60
    assert got.returncode == 128 + 9, got.stderr
    assert "exited on signal 9 (Killed)" in got.stderr
    assert "Total Tasks" not in got.stdout


def test_through_the_harness_and_a_hung_task_stopped_by_its_timeout(probe, tmp_path):
    """The registry entry's mpirun launch (3 ranks: 2 workers) runs; a hung worker is stopped by
    the harness's timeout with every rank (the probe fixture finds none left)."""
    require()
    env = {**os.environ, PROBE: probe, "PYTHONPATH": str(ROOT / "python")}
    env.pop("TASKBENCH_FAULT", None)
    harness = [sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "--build-dir", str(BUILD), "run"]
    args = ["mpi4py_futures", "-steps", "4", "-width", "4", "-type", "tree"]
    got = subprocess.run([*harness, *args], capture_output=True, text=True, env=env, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "status\tok\n" in got.stdout and "tasks / dependencies\t11 / 10\n" in got.stdout, got.stdout
    assert "2 (3 x 1)" in got.stdout, got.stdout
    hung = subprocess.run([*harness, "-q", "--timeout", "5", *args], capture_output=True, text=True,
                          env={**env, "TASKBENCH_FAULT": "hang:0,2,1"}, timeout=120)
    assert "timeout: exceeded the 5 s timeout" in hung.stdout, hung.stdout + hung.stderr


def test_expect_ranks_names_the_job_it_got(probe):
    require()
    env = {k: v for k, v in os.environ.items() if k != "TASKBENCH_FAULT"}
    env.update({PROBE: probe, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    got = subprocess.run([mpirun(), "--oversubscribe", "-np", "2", str(EXE), "-expect-ranks", "3"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert got.returncode == 2, got.stderr
    assert "taskbench: -expect-ranks 3, but the job has 2 rank(s): start it with mpirun -np 3\n" in got.stderr


def test_a_missing_mpi4py_is_one_line_and_status_4(tmp_path):
    if "mpi4py_futures" not in built_systems():
        pytest.skip(f"mpi4py_futures is not built in {BUILD}")
    (tmp_path / "mpi4py").mkdir()
    (tmp_path / "mpi4py" / "__init__.py").write_text("raise ImportError('no mpi4py here')\n")
    got = subprocess.run([str(EXE), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and "taskbench[mpi4py]" in got.stderr
