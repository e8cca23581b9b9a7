"""ray_compiled (Ray Compiled Graphs), in a network namespace of its own with only loopback, as
ray: every pattern in one run against serial with several window sizes (windows that do and do
not divide the steps, rounded up to the period, unions of dom's and tree's rows), other kernels
and 1 MiB outputs, the fault switch (corrupt, kill, and hang through the harness's timeout),
the build time in the report, and a missing Ray; nothing may be left running after any of them."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     built_systems, every_pattern, serial_totals, totals)

sys.path.insert(0, str(ROOT / "python"))
from taskbench.launch.loopback import can_isolate, wrap  # noqa: E402
sys.path.insert(0, str(ROOT / "scripts"))
from fault_matrix import stored_run  # noqa: E402

NAME = "ray_compiled"


def require():
    if NAME not in built_systems():
        pytest.skip(f"{NAME} is not built in {BUILD}")
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (scripts/install-deps.sh, or pip install 'taskbench[ray]')")
    if not can_isolate():
        pytest.skip("a network namespace needs unshare and ip, as root")


def run_compiled(args, marker, extra_env=None, timeout=240):
    env = {**os.environ, PROBE: marker, **(extra_env or {})}
    return subprocess.run(wrap([str(BIN / NAME), *args]), capture_output=True, text=True, env=env,
                          timeout=timeout)


# System flags first, then the graphs serial also runs: -window 1 is below every period (each
# rounded up to its own), 5 divides no pattern's steps here, 3 workers split 4 columns unevenly.
@pytest.mark.parametrize("flags", [[], ["-window", "1", "-worker", "3"], ["-window", "5"]],
                         ids=["default", "window1-3workers", "window5"])
def test_every_pattern_equals_serial(probe, flags):
    require()
    args = every_pattern(steps=14)
    got = run_compiled(["-worker", "2", *flags, *args], probe)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs(probe):
    require()
    got = run_compiled(OTHER_KERNELS, probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


def test_the_report_keeps_the_build_time_and_the_windows(probe, tmp_path):
    require()
    # stencil_1d repeats every row (window 4: 3 replays of 10 steps), fft 8 wide every 3 rows
    # and spread every -period 3 rows (windows rounded up to 6).
    args = ["-steps", "10", "-width", "4", "-type", "stencil_1d", "-and", "-steps", "10", "-width", "8",
            "-type", "fft", "-and", "-steps", "9", "-width", "4", "-type", "spread", "-period", "3"]
    got = run_compiled(["-window", "4", "-json", str(tmp_path / "report.json"), *args], probe)
    assert got.returncode == 0, got.stderr
    graph = json.loads((tmp_path / "report.json").read_text())["system_report"]["persistent_graph"]
    assert graph["rows"] == [4, 6, 6] and graph["replays"] == 3
    assert graph["seconds"] > 0
    line = [ln for ln in got.stdout.splitlines() if ln.startswith("Graph Build Time ")]
    assert len(line) == 1 and f"{graph['nodes']} nodes, windows of 4, 6, 6 rows, 3 replays" in line[0]
    assert totals(got.stdout) == serial_totals(args)


# In one window, and with windows of 1 row, where the corrupted output of (2, 1) reaches row 3
# from the previous replay (kept in its actor, handed on by a kept_output node).
@pytest.mark.parametrize("window", [[], ["-window", "1"]], ids=["one-window", "window1"])
def test_fault_switch_fails_validation(probe, window):
    require()
    assert_validation_failed(run_compiled([*window, *FAULT_GRAPHS], probe, CORRUPTED))


def test_a_worker_killed_in_a_later_replay_fails_the_run_promptly(probe):
    require()
    started = time.monotonic()
    # Windows of 2 rows: task (5, 2) of the second graph runs in its third replay.
    graphs = ["-steps", "4", "-width", "2", "-and", "-steps", "8", "-width", "4", "-type", "stencil_1d",
              "-kernel", "busy_wait", "-iter", "100000"]
    got = run_compiled(["-window", "2", *graphs], probe, {"TASKBENCH_FAULT": "kill:1,5,2"}, timeout=90)
    assert time.monotonic() - started < 60
    assert got.returncode == 1, got.stderr
    assert got.stderr.splitlines()[-1].startswith(
        "taskbench: a Ray worker process died during the run (ActorDiedError: ")
    assert "Traceback" not in got.stderr  # the graph's monitor thread is kept quiet
    assert "Total Tasks" not in got.stdout


def test_a_hung_task_runs_into_the_harness_timeout_and_nothing_is_left(probe, tmp_path):
    require()
    db = tmp_path / "hang.db"
    env = {**os.environ, PROBE: probe, "TASKBENCH_FAULT": "hang:0,2,3", "PYTHONPATH": str(ROOT / "python")}
    got = subprocess.run([sys.executable, "-m", "taskbench", "--db", str(db), "-q", "--build-dir", str(BUILD),
                          "run", "--timeout", "20", "--campaign", "hang", NAME, "-type", "tree", "-steps", "4",
                          "-width", "4"], capture_output=True, text=True, env=env, timeout=120)
    assert got.returncode == 3, got.stderr  # a failed run, stored
    run = stored_run(db, "hang")
    assert run is not None and run["status"] == "timeout", run
    assert run["reason"] == "exceeded the 20 s timeout"
    # The probe fixture then checks that nothing carrying the run's marker is still alive.


def test_a_missing_ray_is_one_line_and_status_4(tmp_path):
    if NAME not in built_systems():
        pytest.skip(f"{NAME} is not built in {BUILD}")
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    got = subprocess.run([str(BIN / NAME), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and "taskbench[ray]" in got.stderr
