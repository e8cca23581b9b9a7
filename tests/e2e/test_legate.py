"""legate (Legion through legate's wheel, on the machine's NVIDIA driver or the build's stand-in):
every pattern in one run against serial (its runtime takes about a second to start, so
test_systems.py leaves it out: LARGE_ENGINES), other kernels and 1 MiB outputs, the fault switch,
bad flags and a missing legate in one line, and the driver named by `taskbench systems`. Under
TASKBENCH_REQUIRE_LARGE_ENGINES=1 (scripts/test.sh's last stage) an unbuilt legate fails."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from large_engines import assert_bad_flag_is_one_line, assert_missing_engine_is_one_line, require, run_system
from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, ROOT, assert_validation_failed, built_systems,
                     every_pattern, serial_totals, totals)
from test_realm import assert_a_hang_holds_the_run

def test_every_pattern_equals_serial(probe):
    require("legate", "legate")
    args = every_pattern()
    got = run_system("legate", ["-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""  # Realm's start-up warnings (no CUDA device) stay off without -v
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_scratch_and_1mib_outputs(probe):
    require("legate", "legate")
    got = run_system("legate", OTHER_KERNELS, probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


def test_a_corrupted_output_fails_validation(probe):
    require("legate", "legate")
    got = run_system("legate", FAULT_GRAPHS, probe, CORRUPTED)
    assert_validation_failed(got)


def test_a_killed_task_kills_the_run(probe):
    require("legate", "legate")
    got = run_system("legate", FAULT_GRAPHS, probe, {"TASKBENCH_FAULT": "kill:1,2,1"})
    assert got.returncode == -signal.SIGKILL, got.stderr
    assert "Total Tasks" not in got.stdout


def test_a_hung_task_stops_the_run_until_it_is_killed(probe):
    require("legate", "legate")
    assert_a_hang_holds_the_run([str(BIN / "legate"), *FAULT_GRAPHS], probe, seconds=10)


def test_with_v_realm_says_what_it_found():
    """-v leaves Realm's loggers as they are: where the stand-in is the driver, Realm's own line
    about cuInit's answer shows."""
    require("legate", "legate")
    got = run_system("legate", ["-v", "-steps", "2", "-width", "2"])
    assert got.returncode == 0, got.stderr
    note = json.loads((BUILD / "taskbench-build.json").read_text())["components"]["LEGATE"]["note"]
    if "stand-in" in note:
        # Realm's loggers write to stdout.
        assert "cuInit(0) returned 100 (CUDA_ERROR_NO_DEVICE)" in got.stdout + got.stderr


def test_bad_flag_is_one_line_and_status_2():
    require("legate", "legate")
    assert_bad_flag_is_one_line("legate")


def test_more_processors_than_legion_holds_is_one_line():
    """The wheel's Legion holds 64 processors, the utility one included: -worker 64 is refused
    by the parser rather than aborting Legion as it starts."""
    require("legate", "legate")
    got = run_system("legate", ["-worker", "64"])
    assert got.returncode == 2
    assert got.stderr == "taskbench: -worker: invalid value '64'; expected an integer from 1 to 63\n"


def test_a_missing_legate_is_one_line_and_status_4(tmp_path):
    require("legate", "legate")
    assert_missing_engine_is_one_line("legate", "legate", "legion", tmp_path)


def test_taskbench_systems_names_the_driver_or_why_not_built():
    manifest = BUILD / "taskbench-build.json"
    if not manifest.exists():
        pytest.skip(f"no build in {BUILD}")
    component = json.loads(manifest.read_text())["components"]["LEGATE"]
    shown = subprocess.run([sys.executable, "-m", "taskbench", "systems", "-q", "--build-dir", str(BUILD)],
                           capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
    row = next(line for line in shown.stdout.splitlines() if line.startswith("legate\t"))
    if "legate" in built_systems():
        assert component["enabled"] is True
        assert "NVIDIA driver: " in component["note"] and component["note"] in row
    else:
        if component["reason"].startswith("disabled by") or "PYTHON" in component["reason"]:
            pytest.skip(component["reason"])
        assert "not built: " in row and component["reason"] in row
        assert "install-large-engines.sh" in component["reason"]
