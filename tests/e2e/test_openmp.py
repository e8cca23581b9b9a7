"""The OpenMP systems beyond what test_systems.py checks: openmp_task's discovery figure and
its -priority flag."""
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


@pytest.mark.parametrize("name", TASK_BUILDS)
def test_discovery_counts_every_task_created(name, tmp_path):
    report = tmp_path / "r.json"
    # 2 graphs, 300 + 5 x 40 tasks: several creation windows, one ending inside a row
    got = run(system(name), ["-worker", "2", "-steps", "100", "-width", "3", "-type", "stencil_1d",
                             "-kernel", "busy_wait", "-iter", "100000", "-and", "-steps", "40",
                             "-width", "5", "-type", "fft", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    r = json.loads(report.read_text())
    d = r["system_report"]["discovery"]
    assert d["tasks"] == 500
    # creation is a part of the run, and well below it: every task busy-waits far longer
    assert 0 < d["seconds"] < 0.5 * r["elapsed_seconds"]


@pytest.mark.parametrize("name", TASK_BUILDS)
def test_priority_needs_a_max_priority(name):
    s = system(name)
    got = run(s, ["-priority", "-steps", "4"], extra_env={"OMP_MAX_TASK_PRIORITY": "0"})
    assert got.returncode == 2
    assert got.stderr.strip() == ("taskbench: -priority needs OMP_MAX_TASK_PRIORITY > 0 (without it "
                                  "the runtime ignores priority clauses)")
    ok = run(s, ["-priority", "-steps", "30", "-width", "4", "-type", "tree"],
             extra_env={"OMP_MAX_TASK_PRIORITY": "8"})
    assert ok.returncode == 0, ok.stderr
