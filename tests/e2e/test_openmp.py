"""The OpenMP systems beyond what test_systems.py checks: openmp_task's discovery figure, its
-priority flag (with -window only) and -field (test_openmp_algorithm.py checks the algorithm)."""
from __future__ import annotations

import json

import pytest

from systems import built_systems, local_systems, run

BY_NAME = {s.name: s for s in local_systems()}
BUILT = set(built_systems())
TASK_BUILDS = [n for n in ("openmp_task", "openmp_task_llvm") if n in BY_NAME]


def system(name: str):
    s = BY_NAME[name]
    if s.binary.name not in BUILT or not s.binary.exists():
        pytest.skip(f"{name} is not built")
    return s


@pytest.mark.parametrize("design", [[], ["-window"]], ids=["all_at_once", "window"])
@pytest.mark.parametrize("name", TASK_BUILDS)
def test_discovery_counts_every_task_created(name, design, tmp_path):
    report = tmp_path / "r.json"
    # 2 graphs, 300 + 5 x 40 tasks: more than libgomp defers at once (64 per thread), and with
    # -window several creation windows, one ending inside a row
    got = run(system(name), [*design, "-worker", "2", "-steps", "100", "-width", "3", "-type", "stencil_1d",
                             "-kernel", "busy_wait", "-iter", "100000", "-and", "-steps", "40",
                             "-width", "5", "-type", "fft", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    r = json.loads(report.read_text())
    d = r["system_report"]["discovery"]
    assert d["tasks"] == 500
    # creation is a part of the run, and well below it: every task busy-waits far longer (the
    # bodies the creator runs itself, undeferred, are not counted)
    assert 0 < d["seconds"] < 0.5 * r["elapsed_seconds"]
    assert r["system_report"]["creation"]["design"] == ("windows" if design else "all_at_once")


@pytest.mark.parametrize("name", TASK_BUILDS)
def test_priority_needs_windows_and_a_max_priority(name):
    s = system(name)
    alone = run(s, ["-priority", "-steps", "4"], extra_env={"OMP_MAX_TASK_PRIORITY": "8"})
    assert alone.returncode == 2 and alone.stdout == ""
    assert alone.stderr == ("taskbench: -priority needs -window (it orders the tasks of a creation "
                            "window; the paper's algorithm has none)\n")
    got = run(s, ["-window", "-priority", "-steps", "4"], extra_env={"OMP_MAX_TASK_PRIORITY": "0"})
    assert got.returncode == 2
    assert got.stderr.strip() == ("taskbench: -priority needs OMP_MAX_TASK_PRIORITY > 0 (without it "
                                  "the runtime ignores priority clauses)")
    ok = run(s, ["-window", "-priority", "-steps", "30", "-width", "4", "-type", "tree"],
             extra_env={"OMP_MAX_TASK_PRIORITY": "8"})
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("name", TASK_BUILDS)
def test_fields_are_the_graphs_with_at_least_two(name, tmp_path):
    # -field F buffers per column, one per row at most; one buffer cannot hold a row while the
    # next is written, so -field 1 runs with 2, as the report says. -window keeps its own.
    def fields(*args: str) -> list[int]:
        report = tmp_path / "r.json"
        got = run(system(name), [*args, "-json", str(report)])
        assert got.returncode == 0, got.stderr
        return json.loads(report.read_text())["system_report"]["creation"]["fields"]

    assert fields("-steps", "9", "-and", "-steps", "9", "-field", "5", "-and", "-steps", "3", "-field", "7",
                  "-and", "-field", "1") == [2, 5, 3, 2]
    assert fields("-window", "-worker", "2", "-steps", "9", "-field", "5") == [64 * 2 // 4 + 3]
    huge = run(system(name), ["-width", "64", "-output", "1048576", "-steps", "1048576", "-field", "1048576"])
    assert huge.returncode == 2 and huge.stdout == "" and huge.stderr.count("\n") == 1
    assert huge.stderr.startswith("taskbench: -field: 1048576 output buffers per point need ")
