"""pyspark on local[2]: every pattern in one run (graphs side by side, -and: a Spark session
takes seconds to start) against serial, other kernels and 1 MiB outputs, the fault switch
caught in Spark's Python workers, bad flags, a missing pyspark, and no JVM or Python worker
left running after a run. Then on a standalone master and worker on 127.0.0.1, started and
stopped by the harness's launcher (build/libexec/taskbench/spark_cluster): the same data path (rows.py), so
one run of two graphs against serial, and nothing of the cluster left after it."""
from __future__ import annotations

from large_engines import (assert_bad_flag_is_one_line, assert_missing_engine_is_one_line,
                           assert_validation_failed, require, run_system)
from systems import BIN, LIBEXEC, every_pattern, serial_totals, totals

FAULTY = ["-steps", "5", "-width", "3", "-type", "no_comm", "-and", "-steps", "6", "-width", "4",
          "-type", "stencil_1d", "-and", "-steps", "6", "-width", "4", "-type", "all_to_all"]


def test_every_pattern_equals_serial(probe):
    require("pyspark", "pyspark")
    args = every_pattern()
    got = run_system("pyspark", ["-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_other_kernels_and_1mib_outputs(probe):
    require("pyspark", "pyspark")
    args = ["-steps", "3", "-width", "3", "-type", "stencil_1d", "-output", "1048576", "-and",
            "-steps", "4", "-width", "3", "-type", "tree", "-kernel", "memory_daxpy", "-scratch", "8192",
            "-iter", "4", "-and", "-steps", "4", "-width", "3", "-type", "fft", "-kernel", "compute_dgemm",
            "-scratch", "24000", "-iter", "2"]
    got = run_system("pyspark", args, probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_fault_switch_fails_validation(probe):
    require("pyspark", "pyspark")
    got = run_system("pyspark", FAULTY, probe, {"TASKBENCH_FAULT": "corrupt:2,2,1"})
    assert_validation_failed(got, 2)


def test_bad_flag_is_one_line_and_status_2():
    require("pyspark", "pyspark")
    assert_bad_flag_is_one_line("pyspark")


def test_a_missing_pyspark_is_one_line_and_status_4(tmp_path):
    require("pyspark", "pyspark")
    assert_missing_engine_is_one_line("pyspark", "pyspark", "spark", tmp_path)


def test_standalone_cluster_equals_serial_and_leaves_nothing(probe):
    require("pyspark", "pyspark")
    args = ["-steps", "4", "-width", "3", "-type", "stencil_1d", "-and", "-steps", "4", "-width", "3",
            "-type", "all_to_all", "-kernel", "compute_bound", "-iter", "20"]
    got = run_system(str(LIBEXEC / "spark_cluster"), ["-workers", "2", "--", str(BIN / "pyspark"), *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
