"""legion (the paper's port) and legion_untraced: Legion C++ from legate's PyPI wheel, on Realm
CPU processors. Every pattern in one run (graphs side by side, -and) against serial, legion's
paper-port behaviour (a trace per period, a warm-up pass then the timed one, a read requirement
per dependency point, every column on one CPU processor), trace windows that do and do not
divide the patterns' periods, other kernels and 1 MiB outputs, the fault switch (corrupt, hang,
kill) with nothing left running, bad flags answered in one line before Legion starts, and
Realm's and Legion's own lines kept off stdout and (without -v) off stderr.

Skipped where the wheel is not installed or legion is not built, but failed instead under
TASKBENCH_REQUIRE_LARGE_ENGINES=1 (scripts/test.sh's large-engines stage)."""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from large_engines import require as require_large
from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, assert_validation_failed,
                     every_pattern, registry, serial_totals, totals)

# The registry's two entries, one binary: legion_untraced is its flags for our design (system.toml).
ENTRIES = {s.name: s.entry.get("args", []) for s in registry() if s.entry.get("binary") == "legion"}
assert sorted(ENTRIES) == ["legion", "legion_untraced"] and ENTRIES["legion"] == []


def require() -> None:
    require_large("legion", "legate")
    if not (BIN / "legion").exists():  # configured, not yet built
        reason = f"{BIN / 'legion'} is not built (run the build)"
        if os.environ.get("TASKBENCH_REQUIRE_LARGE_ENGINES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def run_legion(args, marker="", extra_env=None, timeout=300):
    env = {k: v for k, v in os.environ.items() if k != "TASKBENCH_FAULT"}
    env.update({PROBE: marker} if marker else {})
    env.update(extra_env or {})
    return subprocess.run([str(BIN / "legion"), *args], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_pattern_equals_serial(entry, probe, tmp_path):
    require()
    args = every_pattern()
    report = tmp_path / "r.json"
    got = run_legion(["-worker", "2", *ENTRIES[entry], *args, "-json", str(report)], probe)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""
    assert totals(got.stdout) == serial_totals(args)
    written = json.loads(report.read_text())
    assert written["parallelism"]["threads_per_rank"] == 2
    # legion records a trace per distinct window shape; legion_untraced traces nothing.
    assert (written["system_report"]["legion_traces"] > 0) == (entry == "legion")


def test_legion_runs_the_paper_ports_design(tmp_path):
    """The paper's port (the original's legion/main.cc): stencil_1d, 11 rows at width 3, 2 fields,
    so a trace per 2 rows: 5 full windows traced (row 0's window and the 4 alike, 2 trace ids),
    row 10 untraced; the warm-up pass records them, the second pass is the one timed and
    counted (the report checks every task ran once since the counts restarted); one read
    requirement per dependency point; every column's tasks on one CPU processor. The old legion
    traced nothing, timed its only pass and let the default mapper move points."""
    require()
    report = tmp_path / "r.json"
    got = run_legion(["-worker", "2", "-steps", "11", "-width", "3", "-type", "stencil_1d", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    assert "Total Tasks 33" in got.stdout
    system = json.loads(report.read_text())["system_report"]
    assert system["legion_passes"] == 2 and system["legion_warm_up_seconds"] > 0
    assert (system["legion_trace_window"], system["legion_traces"], system["legion_traced_windows"]) == (2, 2, 5)
    assert system["legion_reads"] == "per point" and system["legion_mapper"] == "pinned"
    assert system["legion_columns_moved"] == 0


def test_the_trace_period_is_lcm_of_fields_and_timestep_periods(tmp_path):
    """fft at width 8 has 3 dependence sets: the period is lcm(2, 3) = 6 rows; with -and a
    stencil beside it keeps 6. 13 rows: windows 0-5 and 6-11 traced (2 ids: row 0 reads nothing),
    row 12 not."""
    require()
    report = tmp_path / "r.json"
    got = run_legion(["-worker", "2", "-steps", "13", "-width", "8", "-type", "fft", "-and", "-steps", "13",
                      "-width", "2", "-type", "stencil_1d", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    system = json.loads(report.read_text())["system_report"]
    assert (system["legion_trace_window"], system["legion_traces"], system["legion_traced_windows"]) == (6, 2, 2)


def test_legion_untraced_is_our_design(tmp_path):
    require()
    report = tmp_path / "r.json"
    got = run_legion(["-worker", "2", *ENTRIES["legion_untraced"], "-steps", "11", "-width", "3", "-type",
                      "stencil_1d", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    system = json.loads(report.read_text())["system_report"]
    assert (system["legion_passes"], system["legion_traces"], system["legion_traced_windows"]) == (1, 0, 0)
    assert system["legion_reads"] == "per interval" and system["legion_mapper"] == "default"


@pytest.mark.parametrize("entry", ENTRIES)
def test_with_a_utility_processor(entry, probe):
    """-util 1: Legion's analysis and mapping on a utility processor of their own instead of
    the CPU processors (the default), the same totals."""
    require()
    args = every_pattern()
    got = run_legion(["-worker", "2", "-util", "1", *ENTRIES[entry], *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


@pytest.mark.parametrize("window", [1, 3, 5])
def test_trace_windows_that_do_not_divide_the_period(window, probe):
    """Windows of 1, 3 and 5 rows over 13 steps: odd windows alternate the output fields,
    3 is fft's and spread's period at width 8, the last window is short (not traced); dom and
    tree change width from row to row, so most of their windows are recorded and replayed only
    by the timed pass."""
    require()
    args = every_pattern(steps=13, width=8)
    got = run_legion(["-worker", "2", "-trace-window", str(window), *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_one_trace_per_window_shape(tmp_path):
    """stencil_1d, 10 rows, windows of 3: rows 0-2 (with row 0, which reads nothing), 3-5 and
    6-8 (opposite field parities): three trace ids; the short 9 is not traced. Windows of 2:
    row 0's window and one shape for the other four."""
    require()
    for window, traces in ((3, 3), (2, 2), (10, 1), (4, 2)):
        report = tmp_path / f"w{window}.json"
        got = run_legion(["-worker", "2", "-steps", "10", "-width", "3", "-type", "stencil_1d",
                          "-trace-window", str(window), "-json", str(report)])
        assert got.returncode == 0, got.stderr
        written = json.loads(report.read_text())["system_report"]
        assert written["legion_traces"] == traces, window
        assert written["legion_trace_window"] == window


@pytest.mark.parametrize("entry", ENTRIES)
def test_other_kernels_and_1mib_outputs(entry, probe):
    require()
    got = run_legion(["-worker", "2", *ENTRIES[entry], *OTHER_KERNELS], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


@pytest.mark.parametrize("entry", ENTRIES)
def test_fault_switch_fails_validation(entry, probe):
    """The consumer reads the corrupted output from the instance Legion mapped for its read
    requirement; the core ends the process with status 3 from inside the point task."""
    require()
    got = run_legion(["-worker", "2", *ENTRIES[entry], *FAULT_GRAPHS], probe, CORRUPTED)
    assert_validation_failed(got)


def test_a_hung_task_keeps_the_run_until_it_is_killed(probe):
    """A point task that sleeps forever: the run never ends on its own, and killing the one
    process ends Legion and Realm with it (the probe finds nothing left)."""
    require()
    with pytest.raises(subprocess.TimeoutExpired) as hung:
        run_legion(["-worker", "2", "-steps", "6", "-width", "4", "-type", "stencil_1d"], probe,
                   {"TASKBENCH_FAULT": "hang:0,3,2"}, timeout=5)
    out = hung.value.stdout or b""
    assert "Total Tasks" not in (out.decode() if isinstance(out, bytes) else out)


def test_a_killed_process_fails_the_run_promptly(probe):
    require()
    start = time.monotonic()
    got = run_legion(["-worker", "2", *ENTRIES["legion_untraced"], "-steps", "6", "-width", "4", "-type",
                      "stencil_1d"], probe, {"TASKBENCH_FAULT": "kill:0,3,2"}, timeout=90)
    assert time.monotonic() - start < 60
    assert got.returncode == -9, got.stderr
    assert "Total Tasks" not in got.stdout


@pytest.mark.parametrize("args,message", [
    (["-worker", "0"], "-worker: invalid value '0'"),
    (["-worker", "63"], "-worker: invalid value '63'"),  # Legion's 64 processors, less 2
    (["-trace-window", "-1"], "-trace-window: invalid value '-1'"),
    (["-worker", "60", "-util", "3"], "-util: invalid value '3'; -worker plus -util must be at most 62"),
    (["-ll:cpu", "2"], "-ll:cpu"),  # Realm's flags are the system's to set, not the user's
])
def test_bad_flags_are_one_line_before_legion_starts(args, message):
    require()
    got = run_legion(args)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and got.stderr.startswith("taskbench: ") and message in got.stderr


def test_help_starts_no_runtime():
    require()
    got = run_legion(["-h"])
    assert got.returncode == 0 and got.stderr == ""
    assert "-trace-window N" in got.stdout and "-worker N" in got.stdout and "-no-warm-up" in got.stdout


def test_realm_lines_only_with_v():
    """Realm logs to stdout by default; here its lines go to stderr, and only with -v. With
    the driver stand-in, Realm's CUDA module reports the absent device there."""
    require()
    small = ["-worker", "2", "-steps", "3", "-width", "2", "-type", "stencil_1d"]
    quiet = run_legion(small)
    assert quiet.returncode == 0 and quiet.stderr == ""
    loud = run_legion([*small, "-v"])
    assert loud.returncode == 0, loud.stderr
    assert totals(loud.stdout) == totals(quiet.stdout)
    assert not any(line.startswith("[0 - ") for line in loud.stdout.splitlines())
    if (BUILD / "cuda-standin" / "libcuda.so.1").exists():
        assert "cuInit(0) returned 100 (CUDA_ERROR_NO_DEVICE)" in loud.stderr
