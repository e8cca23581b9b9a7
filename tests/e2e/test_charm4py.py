"""charm4py: real Charm++ PEs started by charmrun (++local), always in a network namespace with
only loopback (charmrun and its PEs listen on every interface). Every pattern in one run (graphs
side by side, -and) against serial, other kernels and 1 MiB outputs, the fault switch caught
on whichever PE ran the consumer, a killed PE failing the run promptly with nothing left
running, bad flags answered before any PE starts, and a missing charm4py."""
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
from taskbench.launch.loopback import missing_tools, wrap  # noqa: E402


def require():
    if "charm4py" not in built_systems():
        pytest.skip(f"charm4py is not built in {BUILD}")
    if importlib.util.find_spec("charm4py") is None:
        pytest.skip("charm4py is not installed (scripts/install-deps.sh, or pip install 'taskbench[charm4py]')")
    if missing_tools() or os.geteuid() != 0:
        pytest.skip("a network namespace needs unshare and ip, as root")


def run_charm(args, marker, extra_env=None, timeout=120):
    env = {**os.environ, PROBE: marker, **(extra_env or {})}
    return subprocess.run(wrap([str(BIN / "charm4py"), *args]), capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_every_pattern_equals_serial_on_3_pes(probe, tmp_path):
    require()
    args = every_pattern()
    report, trace = tmp_path / "r.json", tmp_path / "t.json"
    got = run_charm(["-worker", "3", *args, "-json", str(report), "-trace", str(trace)], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    # -worker 3 became +p3: the report's parallelism is charm.numPes() as the PEs saw it.
    assert json.loads(report.read_text())["parallelism"]["threads_per_rank"] == 3
    # Every task's trace event came back to PE 0, from more than one PE process.
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) == json.loads(report.read_text())["totals"]["tasks"]
    assert len({e["tid"] for e in events}) >= 2


def test_other_kernels_and_1mib_outputs(probe):
    require()
    args = OTHER_KERNELS
    got = run_charm(["-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_fault_switch_fails_validation(probe):
    require()
    got = run_charm(["-worker", "2", *FAULT_GRAPHS], probe, CORRUPTED)
    assert_validation_failed(got)


def test_a_killed_pe_fails_the_run_promptly(probe):
    require()
    start = time.monotonic()
    got = run_charm(["-worker", "2", "-steps", "6", "-width", "4", "-type", "stencil_1d", "-kernel", "busy_wait",
                     "-iter", "100000"], probe, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=90)
    assert time.monotonic() - start < 60
    assert got.returncode == 1, got.stderr
    # charmrun, the PEs' parent, names the PE whose connection closed.
    assert "Charmrun> error on request socket to node" in got.stderr
    assert "Total Tasks" not in got.stdout


def test_bad_flags_and_help_answer_before_any_pe_starts():
    if "charm4py" not in built_systems():
        pytest.skip(f"charm4py is not built in {BUILD}")
    got = subprocess.run([str(BIN / "charm4py"), "-worker", "0"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and "-worker: invalid value '0'" in got.stderr
    got = subprocess.run([str(BIN / "charm4py"), "-h"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0 and "-worker N" in got.stdout and "charm" not in got.stderr.lower()


def test_a_missing_charm4py_is_one_line_and_status_4(tmp_path):
    if "charm4py" not in built_systems():
        pytest.skip(f"charm4py is not built in {BUILD}")
    (tmp_path / "charm4py").mkdir()
    (tmp_path / "charm4py" / "__init__.py").write_text("raise ImportError('no charm4py here')\n")
    got = subprocess.run([str(BIN / "charm4py"), "-steps", "2"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert got.returncode == 4
    assert got.stderr.count("\n") == 1 and "taskbench[charm4py]" in got.stderr
