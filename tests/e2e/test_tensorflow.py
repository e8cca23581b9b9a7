"""tensorflow: every pattern in one run (graphs side by side, -and: importing TensorFlow takes
seconds) against serial, other kernels and 1 MiB outputs, the second of two calls timed (as the
paper's port), the fault switch caught by the core inside the custom op (on TensorFlow's own
tensors), bad flags, a missing tensorflow."""
from __future__ import annotations

import json

from large_engines import (assert_bad_flag_is_one_line, assert_missing_engine_is_one_line,
                           assert_validation_failed, require, run_system)
from systems import every_pattern, serial_totals, totals


def test_every_pattern_equals_serial():
    require("tensorflow", "tensorflow")
    args = every_pattern()
    got = run_system("tensorflow", ["-worker", "2", *args])
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs():
    require("tensorflow", "tensorflow")
    args = ["-steps", "3", "-width", "3", "-type", "stencil_1d", "-output", "1048576", "-and",
            "-steps", "4", "-width", "3", "-type", "tree", "-kernel", "memory_daxpy", "-scratch", "8192",
            "-iter", "4", "-and", "-steps", "4", "-width", "3", "-type", "fft", "-kernel", "compute_dgemm",
            "-scratch", "24000", "-iter", "2", "-and", "-steps", "4", "-width", "3", "-type", "nearest",
            "-kernel", "load_imbalance", "-iter", "50", "-imbalance", "1", "-fraction", "0.3"]
    got = run_system("tensorflow", args)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_the_timed_call_is_the_second(tmp_path):
    """As the paper's port, which times the second of two sess.run: the first call builds a
    kernel per op and runs every task; the timed one builds none and runs every task again,
    and the report counts its tasks alone (App.report fails a run whose counts are off)."""
    require("tensorflow", "tensorflow")
    report = tmp_path / "r.json"
    got = run_system("tensorflow", ["-worker", "2", "-steps", "5", "-width", "3", "-type", "stencil_1d",
                                    "-json", str(report)])
    assert got.returncode == 0, got.stderr
    written = json.loads(report.read_text())
    first, timed = written["system_report"]["calls"]
    assert (first["timed"], first["tasks"], first["kernels_constructed"]) == (False, 15, 15)
    assert (timed["timed"], timed["tasks"], timed["kernels_constructed"]) == (True, 15, 0)
    assert written["elapsed_seconds"] == timed["seconds"]
    assert "Total Tasks 15\n" in got.stdout


def test_fault_switch_fails_validation():
    require("tensorflow", "tensorflow")
    args = ["-steps", "5", "-width", "3", "-type", "no_comm", "-and", "-steps", "6", "-width", "4",
            "-type", "random_spread", "-fraction", "1"]
    got = run_system("tensorflow", args, extra_env={"TASKBENCH_FAULT": "corrupt:1,2,1"})
    assert_validation_failed(got, 1)


def test_bad_flag_is_one_line_and_status_2():
    require("tensorflow", "tensorflow")
    assert_bad_flag_is_one_line("tensorflow")


def test_a_missing_tensorflow_is_one_line_and_status_4(tmp_path):
    require("tensorflow", "tensorflow")
    assert_missing_engine_is_one_line("tensorflow", "tensorflow", "tensorflow", tmp_path)
