"""ray, always in a network namespace of its own with only loopback (the `loopback` launcher's
wrap): Ray probes and binds the host's outward interface, and no test may send traffic beyond
this host. Every pattern in one run (as graphs side by side, -and) against serial, other
kernels and 1 MiB outputs, the fault switch, and a killed worker process reported promptly
with nothing left running."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time

import pytest

from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     built_systems, every_pattern, serial_totals, totals)

sys.path.insert(0, str(ROOT / "python"))
from taskbench.launch.loopback import missing_tools, wrap  # noqa: E402



def require():
    if "ray" not in built_systems():
        pytest.skip(f"ray is not built in {BUILD}")
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (scripts/install-deps.sh, or pip install 'taskbench[ray]')")
    if missing_tools() or os.geteuid() != 0:
        pytest.skip("a network namespace needs unshare and ip, as root")



def run_ray(args, marker, extra_env=None, timeout=180):
    env = {**os.environ, PROBE: marker, **(extra_env or {})}
    return subprocess.run(wrap([str(BIN / "ray"), *args]), capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_the_namespace_has_only_loopback():
    if missing_tools() or os.geteuid() != 0:
        pytest.skip("a network namespace needs unshare and ip, as root")
    links = subprocess.run(wrap(["ip", "-o", "link"]), capture_output=True, text=True, check=True).stdout
    assert [line.split(":")[1].strip() for line in links.splitlines()] == ["lo"]


def test_every_pattern_equals_serial(probe):
    require()
    args = every_pattern()
    got = run_ray(["-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs(probe):
    require()
    args = OTHER_KERNELS
    got = run_ray(args, probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_fault_switch_fails_validation(probe):
    require()
    got = run_ray(FAULT_GRAPHS, probe, CORRUPTED)
    assert_validation_failed(got)


def test_a_killed_worker_fails_the_run_promptly(probe):
    require()
    start = time.monotonic()
    got = run_ray(["-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait", "-iter",
                   "100000"], probe, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=90)
    assert time.monotonic() - start < 60
    assert got.returncode == 1, got.stderr
    assert "taskbench: a Ray worker process died during the run" in got.stderr
    assert "Total Tasks" not in got.stdout


def test_a_missing_ray_is_one_line_and_status_4(tmp_path):
    if "ray" not in built_systems():
        pytest.skip(f"ray is not built in {BUILD}")
    # A ray that cannot be imported, first on the path: as if it were not installed (no Ray
    # instance starts, so no namespace is needed).
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    got = subprocess.run([str(BIN / "ray"), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and "taskbench[ray]" in got.stderr
