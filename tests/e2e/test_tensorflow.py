"""tensorflow: every pattern in one run (graphs side by side, -and: importing TensorFlow takes
seconds) against serial, other kernels and 1 MiB outputs, the fault switch caught by the core
inside the custom op (on TensorFlow's own tensors), bad flags, a missing tensorflow."""
from __future__ import annotations

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
