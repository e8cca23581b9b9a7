"""dask_distributed, which starts its own cluster for each run, so out of the shared matrix of
test_systems.py (SLOW_TO_START): every pattern in one run (graphs side by side, -and) against
serial, other kernels and 1 MiB outputs, every task's output asked for (as the paper's
dask_core port), the fault switch; attached to a cluster started
elsewhere, through the harness's `dask` launcher, a worker process killed in the middle of a
run, reported promptly, and a hung task stopped by the harness's timeout, with no process of
the cluster left behind."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     built_systems, every_pattern, serial_totals, totals)

ARGS = ["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "100000"]


def require():
    if "dask_distributed" not in built_systems():
        pytest.skip(f"dask_distributed is not built in {BUILD}")
    pytest.importorskip("distributed")


def run(args, marker, extra_env=None, timeout=120):
    env = {**os.environ, PROBE: marker, **(extra_env or {})}
    return subprocess.run([str(BIN / "dask_distributed"), *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_every_pattern_equals_serial(probe):
    require()
    args = every_pattern()
    got = run(["-workers", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs(probe):
    require()
    args = OTHER_KERNELS
    got = run(["-workers", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_fault_switch_fails_validation(probe):
    require()
    got = run(["-workers", "2", *FAULT_GRAPHS], probe, CORRUPTED)
    assert_validation_failed(got)


def test_every_task_output_is_asked_for(probe, tmp_path):
    """As the paper's dask_core port: the run asks for every task's key, not only the 4 outputs
    no task reads, so at its end the scheduler still holds all 24 outputs for the client (had
    it asked for the leaves, it would have freed the other 20 after their last consumer)."""
    require()
    report = tmp_path / "r.json"
    got = run(["-workers", "2", "-steps", "6", "-width", "4", "-type", "stencil_1d", "-json", str(report)], probe)
    assert got.returncode == 0, got.stderr
    results = json.loads(report.read_text())["system_report"]["results"]
    assert results["asked_for"] == 24 and results["held_by_scheduler"] == 24


def test_a_killed_worker_fails_the_run_promptly(probe):
    require()
    start = time.monotonic()
    got = run(["-workers", "2", *ARGS], probe, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=60)
    assert time.monotonic() - start < 30
    # The driver dies of its worker's signal, naming the worker; the cluster goes with it.
    assert got.returncode == -9, got.stderr
    assert re.search(r"taskbench: worker process \d+ was killed by SIGKILL\n", got.stderr), got.stderr
    assert "Total Tasks" not in got.stdout


def test_a_hung_task_is_stopped_by_the_harness_timeout(probe, tmp_path):
    """A task that sleeps forever once the cluster is up (it starts in about 2 s; the fault
    matrix's 1.5 s timeout stops it in its start-up): the harness's timeout ends the run, and
    the probe fixture finds no process of the cluster left."""
    require()
    env = {**os.environ, PROBE: probe, "PYTHONPATH": str(ROOT / "python"), "TASKBENCH_FAULT": "hang:0,2,1"}
    got = subprocess.run([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "-q", "--build-dir",
                          str(BUILD), "run", "--timeout", "8", "dask_distributed", "-steps", "4", "-width", "2"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert got.returncode == 3, got.stdout + got.stderr  # a failed run, stored
    assert "timeout: exceeded the 8 s timeout" in got.stdout, got.stdout + got.stderr


def test_attached_to_a_cluster_started_elsewhere(probe, monkeypatch):
    require()
    from taskbench.clusters.dask import DaskCluster
    # The cluster's processes import taskbench._core from the build, and carry the probe.
    monkeypatch.setenv(PROBE, probe)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "python"))
    monkeypatch.setenv("TASKBENCH_CORE_DIR", str(BUILD / "python" / "taskbench"))
    with DaskCluster(2, 1, python=sys.executable) as cluster:
        address = cluster.start()
        args = ["-steps", "5", "-width", "3", "-type", "nearest", "-radix", "3", "-output", "4096"]
        got = run(["-scheduler", address, "-workers", "2", *args], probe)
        assert got.returncode == 0, got.stderr
        want = subprocess.run([str(BIN / "serial"), *args], capture_output=True, text=True)
        assert totals(got.stdout) == totals(want.stdout)
        # Its threads are the cluster's: -threads is for a cluster this system starts.
        bad = run(["-scheduler", address, "-threads", "2", *args], probe)
        assert bad.returncode == 2 and bad.stderr.startswith("taskbench: -threads: "), bad.stderr


def test_through_the_harness_with_its_workers(probe, tmp_path):
    """The harness starts the cluster (--workers 2 processes of --threads-per-rank 2 threads) and
    the system, attached to it, reports those 2 x 2 cores."""
    require()
    env = {**os.environ, PROBE: probe, "PYTHONPATH": str(ROOT / "python")}
    got = subprocess.run([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "run",
                          "--workers", "2", "--threads-per-rank", "2", "dask_distributed", *ARGS],
                         capture_output=True, text=True, env=env, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "4 (2 x 2)" in got.stdout, got.stdout


def test_a_killed_harness_leaves_no_cluster_behind(probe, tmp_path):
    """SIGKILL to the harness in the middle of a run: its guard and the ties end the cluster
    (scheduler, workers, the cluster starter and the system) at once."""
    require()
    from taskbench.process import leftovers
    env = {**os.environ, PROBE: probe, "PYTHONPATH": str(ROOT / "python")}
    harness = subprocess.Popen([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "run",
                                "--workers", "2", "dask_distributed", "-steps", "100000", "-width", "2"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        # Up: the cluster starter, the scheduler, 2 workers and the system.
        while len(leftovers.processes_with(PROBE, probe)) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(leftovers.processes_with(PROBE, probe)) >= 6
    finally:
        harness.kill()
        harness.wait()
    assert leftovers.wait_until_gone(PROBE, probe, 3.0) == []
