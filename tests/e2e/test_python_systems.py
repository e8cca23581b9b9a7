"""The Python systems beyond the shared matrix of test_systems.py: a worker process killed in the
middle of a run is reported as a failure, promptly, and leaves no process behind."""
from __future__ import annotations

import subprocess
import time

import pytest

from systems import BUILD, BIN, built_systems

ARGS = ["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "100000"]


def require(name: str):
    if name not in built_systems():
        pytest.skip(f"{name} is not built in {BUILD}")


def test_a_killed_pool_process_fails_the_run_promptly():
    require("python_futures")
    start = time.monotonic()
    got = subprocess.run([str(BIN / "python_futures"), "-processes", "-worker", "2", *ARGS],
                         capture_output=True, text=True, timeout=60,
                         env={"TASKBENCH_FAULT": "kill:0,3,2", "PATH": "/usr/bin:/bin"})
    assert time.monotonic() - start < 30
    assert got.returncode == 1, got.stderr
    assert "taskbench: a worker process died" in got.stderr
    assert "Total Tasks" not in got.stdout


def test_the_process_pool_reports_each_worker_in_the_trace(tmp_path):
    require("python_futures")
    trace = tmp_path / "t.json"
    got = subprocess.run([str(BIN / "python_futures"), "-processes", "-worker", "2", *ARGS, "-trace", str(trace)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    import json
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) == 24
    # Both processes ran tasks, each shown as a thread of its own (not the driver's).
    assert len({e["tid"] for e in events}) == 2
