"""The Python systems beyond the shared matrix of test_systems.py: a worker process killed in the
middle of a run is reported as a failure, promptly, and leaves no process behind."""
from __future__ import annotations

import re
import subprocess
import time

import pytest

from systems import BUILD, BIN, built_systems, registry, unavailable

ARGS = ["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter", "100000"]
# Tasks of about 10 ms (ARGS': 0.1 ms), for the tests that every pool worker ran some: with
# ARGS, one of two threads once ran all 24 on a busy CI machine (the other had not been
# scheduled by the time the first came back for the next task).
SPREAD_ARGS = [*ARGS[:-1], "10000000"]


def require(name: str, engine: bool = True):
    """Skips unless `name` is built and, with `engine`, its Python engine is installed."""
    if name not in built_systems():
        pytest.skip(f"{name} is not built in {BUILD}")
    if engine and (reason := unavailable(next(s for s in registry() if s.name == name))):
        pytest.skip(reason)


def test_a_killed_pool_process_fails_the_run_promptly():
    require("python_futures")
    start = time.monotonic()
    got = subprocess.run([str(BIN / "python_futures"), "-processes", "-worker", "2", *ARGS],
                         capture_output=True, text=True, timeout=60,
                         env={"TASKBENCH_FAULT": "kill:0,3,2", "PATH": "/usr/bin:/bin"})
    assert time.monotonic() - start < 30
    # The driver dies of its worker's signal, naming the worker.
    assert got.returncode == -9, got.stderr
    assert re.match(r"taskbench: worker process \d+ was killed by SIGKILL\n", got.stderr), got.stderr
    assert "Total Tasks" not in got.stdout


def test_the_process_pool_reports_each_worker_in_the_trace(tmp_path):
    require("python_futures")
    trace = tmp_path / "t.json"
    got = subprocess.run([str(BIN / "python_futures"), "-processes", "-worker", "2", *SPREAD_ARGS, "-trace", str(trace)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    import json
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) == 24
    # Both processes ran tasks, each shown as a thread of its own (not the driver's).
    assert len({e["tid"] for e in events}) == 2


def test_a_missing_engine_is_one_line_and_status_4(tmp_path):
    require("dask_threaded", engine=False)
    import os
    # A dask that cannot be imported, first on the path: as if it were not installed.
    (tmp_path / "dask").mkdir()
    (tmp_path / "dask" / "__init__.py").write_text("raise ImportError('no dask here')\n")
    got = subprocess.run([str(BIN / "dask_threaded"), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1
    assert got.stderr.startswith("taskbench: dask is not installed for ") and "taskbench[dask]" in got.stderr


def test_dask_threaded_hands_the_whole_graph_over_once(tmp_path):
    """Every task ran once, and on both of the pool's threads."""
    require("dask_threaded")
    import json
    trace = tmp_path / "t.json"
    got = subprocess.run([str(BIN / "dask_threaded"), "-worker", "2", *SPREAD_ARGS, "-trace", str(trace)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    assert sorted((e["args"]["t"], e["args"]["i"]) for e in events) == [(t, i) for t in range(6) for i in range(4)]
    assert len({e["tid"] for e in events}) == 2
