"""What the pyspark and tensorflow tests share: skipping (or, in scripts/test.sh's last stage,
failing) when the engine is missing, and running the system with the probe marker."""
from __future__ import annotations

import importlib.util
import os
import subprocess

import pytest

from systems import BIN, BUILD, PROBE, built_systems


def require(system: str, module: str) -> None:
    """Skips when the system is not built or its engine is not installed, unless the run asks
    for the large engines (TASKBENCH_REQUIRE_LARGE_ENGINES=1): then the test fails."""
    reason = ""
    if system not in built_systems():
        reason = f"{system} is not built in {BUILD}"
    elif importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed (scripts/install-large-engines.sh)"
    if reason and os.environ.get("TASKBENCH_REQUIRE_LARGE_ENGINES") == "1":
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


def run_system(system: str, args: list[str], marker: str = "", extra_env: dict | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, **({PROBE: marker} if marker else {}), **(extra_env or {})}
    program = system if "/" in system else str(BIN / system)  # a system's name, or a helper's path
    return subprocess.run([program, *args], capture_output=True, text=True, env=env, timeout=timeout)


def last_taskbench_line(stderr: str) -> str:
    return [line for line in stderr.splitlines() if line.startswith("taskbench: ")][-1]


def missing_engine_run(system: str, module: str, tmp_path) -> subprocess.CompletedProcess:
    """The system with a `module` that cannot be imported first on the path."""
    (tmp_path / module).mkdir()
    (tmp_path / module / "__init__.py").write_text(f"raise ImportError('no {module} here')\n")
    return subprocess.run([str(BIN / system), "-steps", "2"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})


def assert_validation_failed(got: subprocess.CompletedProcess, graph: int) -> None:
    """Task (2, 1) of `graph` was corrupted (TASKBENCH_FAULT=corrupt:GRAPH,2,1): the run ends
    with status 3 and the core's line for a consumer in row 3, and prints no summary."""
    assert got.returncode == 3, got.stderr
    last = last_taskbench_line(got.stderr)
    assert last.startswith(f"taskbench: validation failed: graph {graph}, task (t=3, i="), got.stderr
    assert "expected the output of (t=2, i=1)" in last
    assert "Total Tasks" not in got.stdout


def assert_bad_flag_is_one_line(system: str) -> None:
    got = run_system(system, ["-worker", "0"])
    assert got.returncode == 2
    assert got.stderr.count("\n") == 1 and got.stderr.startswith("taskbench: -worker: ")


def assert_missing_engine_is_one_line(system: str, module: str, extra: str, tmp_path) -> None:
    got = missing_engine_run(system, module, tmp_path)
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and f"taskbench[{extra}]" in got.stderr
