"""parsl (the HighThroughputExecutor: an interchange and a pool of worker processes on
127.0.0.1, started for each run) and parsl_threads (Parsl's ThreadPoolExecutor): every pattern
in one run (graphs side by side, -and) against serial, other kernels and 1 MiB outputs, the
fault switch (corrupt, kill, and hang through the harness), a pool started elsewhere joining
the interchange (-listen), nothing left running and no Parsl run directory left behind, and a
missing parsl."""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     built_systems, every_pattern, serial_totals, totals)

sys.path.insert(0, str(ROOT / "python"))
from taskbench.process import leftovers  # noqa: E402

SLOW_ARGS = ["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "100000"]


def require():
    if "parsl" not in built_systems():
        pytest.skip(f"parsl is not built in {BUILD}")
    if importlib.util.find_spec("parsl") is None:
        pytest.skip("parsl is not installed (scripts/install-deps.sh, or pip install 'taskbench[parsl]')")


@pytest.fixture
def tmp_path(tmp_path):
    """With a short empty TMPDIR (tmp, a link to it: the system's run directory and the pool's
    sockets go there, and a socket's path has at most 107 bytes)."""
    short = tempfile.mkdtemp(prefix="tb-parsl-")
    (tmp_path / "tmp").symlink_to(short)
    yield tmp_path
    shutil.rmtree(short, ignore_errors=True)


def run(args, marker, tmp_path, extra_env=None, timeout=180):
    """build/bin/parsl in an empty folder, with an empty TMPDIR of its own: both must stay
    empty (Parsl's run directory is a temporary folder that the system removes)."""
    cwd, tmp = tmp_path / "cwd", (tmp_path / "tmp").resolve()
    cwd.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "TASKBENCH_FAULT"}
    env.update({PROBE: marker, "TMPDIR": str(tmp), **(extra_env or {})})
    return subprocess.run([str(BIN / "parsl"), *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def assert_nothing_left_in(tmp_path):
    assert list((tmp_path / "cwd").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("variant", [["-worker", "2"], ["-threads", "-worker", "2"]], ids=["htex", "threads"])
def test_every_pattern_equals_serial(variant, probe, tmp_path):
    require()
    args = every_pattern()
    got = run([*variant, *args], probe, tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""
    assert totals(got.stdout) == serial_totals(args)
    assert_nothing_left_in(tmp_path)


@pytest.mark.parametrize("variant", [["-worker", "2"], ["-threads"]], ids=["htex", "threads"])
def test_other_kernels_and_1mib_outputs(variant, probe, tmp_path):
    require()
    got = run([*variant, *OTHER_KERNELS], probe, tmp_path)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


@pytest.mark.parametrize("variant", [["-worker", "2"], ["-threads"]], ids=["htex", "threads"])
def test_fault_switch_fails_validation(variant, probe, tmp_path):
    require()
    got = run([*variant, *FAULT_GRAPHS], probe, tmp_path, CORRUPTED)
    assert_validation_failed(got)
    assert_nothing_left_in(tmp_path)


def test_a_killed_worker_fails_the_run_promptly(probe, tmp_path):
    """The pool's manager, not the driver, is the worker's parent: Parsl reports the task's
    worker lost (WorkerLost), which ends the run with status 1, one line, nothing left."""
    require()
    start = time.monotonic()
    got = run(["-worker", "2", *SLOW_ARGS], probe, tmp_path, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=90)
    assert time.monotonic() - start < 60
    assert got.returncode == 1, got.stderr
    assert got.stderr.startswith("taskbench: a Parsl worker process died during the run (WorkerLost: ")
    assert got.stderr.count("\n") == 1, got.stderr
    assert "Total Tasks" not in got.stdout
    assert_nothing_left_in(tmp_path)


@pytest.mark.parametrize("system", ["parsl", "parsl_threads"])
def test_a_hung_task_is_stopped_by_the_harness_timeout(system, probe, tmp_path):
    require()
    env = {**os.environ, PROBE: probe, "PYTHONPATH": str(ROOT / "python"), "TASKBENCH_FAULT": "hang:0,2,1"}
    got = subprocess.run([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "-q", "--build-dir",
                          str(BUILD), "run", "--timeout", "8", system, "-steps", "4", "-width", "2"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert "timeout: exceeded the 8 s timeout" in got.stdout, got.stdout + got.stderr
    # The probe fixture then finds no process of the run (interchange, pool, workers) alive.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_pool_started_elsewhere_joins_the_interchange(probe, tmp_path):
    """-listen: the interchange waits on HOST:PORT for pools a batch job would start, here one
    process_worker_pool of 2 workers, which reads the interchange's keys from -keys."""
    require()
    port, keys = free_port(), tmp_path / "keys"
    args = ["-steps", "5", "-width", "3", "-type", "stencil_1d"]
    env = {**os.environ, PROBE: probe}
    driver = subprocess.Popen([str(BIN / "parsl"), "-listen", f"127.0.0.1:{port}", "-keys", str(keys),
                               "-worker", "2", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not (keys / "certificates" / "server.key").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    pool = subprocess.Popen(
        [sys.executable, "-m", "parsl.executors.high_throughput.process_worker_pool", "-a", "127.0.0.1",
         "--port", str(port), "--max_workers_per_node", "2", "-c", "1", "-m", "None", "-p", "0", "--poll", "10",
         "--hb_period", "1", "--hb_threshold", "10", "--drain_period", "None", "--block_id", "0",
         "--cert_dir", str(keys / "certificates"), "--logdir", str(tmp_path / "pool"), "--cpu-affinity", "none",
         "--mpi-launcher", "mpiexec"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**env, "PYTHONPATH": str(ROOT / "python"), "TASKBENCH_CORE_DIR": str(BUILD / "python" / "taskbench")})
    try:
        out, err = driver.communicate(timeout=120)
        assert driver.returncode == 0, err
        assert totals(out) == serial_totals(args)
        assert "Elapsed Time" in out
        # The pool leaves once its interchange is gone (its heartbeat threshold), and its own
        # processes (workers, multiprocessing's helpers) end with it.
        assert pool.wait(timeout=60) == 0
        assert leftovers.wait_until_gone(PROBE, probe, 10.0) == []
    finally:
        driver.kill()
        pool.kill()
        driver.wait()
        pool.wait()


def test_bad_listen_flags_are_one_line(tmp_path):
    require()
    for args in (["-listen", "127.0.0.1"], ["-listen", "127.0.0.1:5"], ["-keys", str(tmp_path)],
                 ["-threads", "-listen", "127.0.0.1:5", "-keys", str(tmp_path)]):
        got = subprocess.run([str(BIN / "parsl"), *args], capture_output=True, text=True, timeout=60)
        assert got.returncode == 2, (args, got.stderr)
        assert got.stderr.count("\n") == 1 and got.stderr.startswith("taskbench: -"), got.stderr


def test_a_missing_parsl_is_one_line_and_status_4(tmp_path):
    if "parsl" not in built_systems():
        pytest.skip(f"parsl is not built in {BUILD}")
    (tmp_path / "parsl").mkdir()
    (tmp_path / "parsl" / "__init__.py").write_text("raise ImportError('no parsl here')\n")
    got = subprocess.run([str(BIN / "parsl"), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and "taskbench[parsl]" in got.stderr
