"""Every local system x every pattern x several kernels, one and two graphs: the totals equal
serial's, validation fires through each system's own data path, bad flags fail cleanly."""
from __future__ import annotations

import json

import pytest

from systems import PATTERNS, System, graph, local_systems, run, totals, unavailable

SYSTEMS = local_systems()
SERIAL = next(s for s in SYSTEMS if s.name == "serial")


def require_built(system: System):
    if reason := unavailable(system):
        pytest.skip(reason)


CASES = {
    "compute": lambda p: graph(p, extra=("-kernel", "compute_bound", "-iter", "20")),
    "two_graphs": lambda p: graph(p, 6, 5, ("-kernel", "busy_wait", "-iter", "100", "-output", "48"))
    + ["-and"] + graph("stencil_1d", 8, 3, ("-kernel", "memory_bound", "-scratch", "4096", "-iter", "3")),
    # More tasks than a system may hold in flight at once (openmp_task_window creates 64 per
    # thread at a time; libgomp runs openmp_task's past 64 per thread undeferred), so creation
    # windows end in the middle of rows and of the graph order.
    "many_tasks_two_graphs": lambda p: graph(p, 40, 7, ("-kernel", "busy_wait", "-iter", "10"))
    + ["-and"] + graph("stencil_1d", 33, 5),
    "wide_output_and_other_graph_first": lambda p: graph("nearest", 5, 4, ("-output", "1040"))
    + ["-and"] + graph(p, 4, 6, ("-output", "4100", "-kernel", "load_imbalance", "-iter", "50",
                                 "-imbalance", "1")),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_totals_equal_serial(system, pattern, case):
    require_built(system)
    args = CASES[case](pattern)
    want = run(SERIAL, args)
    assert want.returncode == 0, want.stderr
    got = run(system, args)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == totals(want.stdout)
    assert len(totals(want.stdout)) == 6


@pytest.mark.parametrize("kernel", [
    ("-kernel", "memory_daxpy", "-scratch", "8192", "-iter", "4"),
    ("-kernel", "compute_dgemm", "-scratch", "24000", "-iter", "2"),
    ("-kernel", "io_bound", "-iter", "2"),
    ("-kernel", "compute_bound2", "-iter", "9"),
    ("-output", "1048576", "-steps", "3", "-width", "3"),
], ids=["daxpy", "dgemm", "io", "compute2", "1MiB_output"])
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_other_kernels_and_large_outputs(system, kernel):
    require_built(system)
    args = graph("stencil_1d", 5, 4) + list(kernel)
    want, got = run(SERIAL, args), run(system, args)
    assert want.returncode == 0 and got.returncode == 0, want.stderr + got.stderr
    assert totals(got.stdout) == totals(want.stdout)


@pytest.mark.parametrize("pattern", ["stencil_1d", "all_to_all", "tree", "random_spread"])
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_fault_switch_fails_validation(system, pattern):
    require_built(system)
    # corrupt task (2, 1) of the second graph: its consumers in row 3 must reject the input.
    args = graph("no_comm", 5, 3) + ["-and"] + graph(pattern, 6, 4, ("-fraction", "1"))
    got = run(system, args, {"TASKBENCH_FAULT": "corrupt:1,2,1"})
    assert got.returncode == 3, got.stdout + got.stderr
    assert "taskbench: validation failed: graph 1, task (t=3, i=" in got.stderr
    assert "expected the output of (t=2, i=1)" in got.stderr


@pytest.mark.parametrize("args,message", [
    (["-steps", "0"], "-steps: invalid value '0'; expected an integer from 1 to 2^60"),
    (["-type", "stencil"], "-type: invalid value 'stencil'; expected one of trivial"),
    (["-iters", "10"], "unknown flag '-iters'"),
    (["-kernel"], "-kernel: missing value"),
    (["-width", "-steps", "3"], "-width: missing value"),
])
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_bad_flags_give_one_line_and_status_2(system, args, message):
    require_built(system)
    got = run(system, args)
    assert got.returncode == 2
    assert got.stderr.count("\n") == 1 and message in got.stderr, got.stderr
    assert got.stdout == ""


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_help(system):
    require_built(system)
    got = run(system, ["-h"])
    assert got.returncode == 0 and "-steps" in got.stdout and "-and" in got.stdout


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_json_report_and_trace(system, tmp_path):
    require_built(system)
    report, trace = tmp_path / "r.json", tmp_path / "t.json"
    got = run(system, graph("stencil_1d", 5, 4, ("-kernel", "compute_bound", "-iter", "10"))
              + ["-json", str(report), "-trace", str(trace)])
    assert got.returncode == 0, got.stderr
    r = json.loads(report.read_text())
    assert r["schema"] == "taskbench-report" and r["schema_version"] == 1
    assert r["system"]["name"] == system.binary.name  # a registry variant reports its binary
    assert r["totals"]["tasks"] == 20 and r["totals"]["dependencies"] == 4 * 10
    assert r["totals"]["flops"] == 20 * 1344
    cores = r["parallelism"]["cores"]
    assert r["task_granularity_seconds"] == pytest.approx(r["elapsed_seconds"] * cores / 20)
    assert r["validation"]["graph_check"] == "passed"
    events = json.loads(trace.read_text())["traceEvents"]
    assert sorted((e["args"]["t"], e["args"]["i"]) for e in events) == [(t, i) for t in range(5) for i in range(4)]
    assert all(e["dur"] >= 0 for e in events)


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s.entry.get("threads_flag")], ids=lambda s: s.name)
def test_worker_flag_sets_the_threads(system, tmp_path):
    require_built(system)
    report = tmp_path / "r.json"
    got = run(system, [system.entry["threads_flag"], "3", "-steps", "20", "-width", "6", "-type", "stencil_1d",
                       "-json", str(report)])
    assert got.returncode == 0, got.stderr
    assert json.loads(report.read_text())["parallelism"]["threads_per_rank"] == 3


# One command line, one graph, on every system (issue 23): a graph without -width is 4 wide
# whatever the system and its workers, as in the original. -steps 9 -width 7 nearest (63 tasks)
# then fft 4 steps x 4 wide (16): 79 tasks (the parallel systems once made the second graph as
# wide as their workers: 71 on 2 cores).
DEFAULT_WIDTH_LINE = ["-steps", "9", "-width", "7", "-type", "nearest", "-radix", "5", "-and", "-type", "fft"]


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_a_graph_without_width_is_4_wide_on_every_system(system, tmp_path):
    require_built(system)
    got = run(system, DEFAULT_WIDTH_LINE)
    assert got.returncode == 0, got.stderr
    assert "Total Tasks 79" in totals(got.stdout)
    assert totals(got.stdout) == totals(run(SERIAL, DEFAULT_WIDTH_LINE).stdout)
    if flag := system.entry.get("threads_flag"):
        # The workers are the system's own flag, independent of the width.
        report = tmp_path / "r.json"
        got = run(system, [flag, "3", *DEFAULT_WIDTH_LINE, "-json", str(report)])
        assert got.returncode == 0, got.stderr
        assert "Total Tasks 79" in totals(got.stdout)
        assert json.loads(report.read_text())["parallelism"]["threads_per_rank"] == 3
