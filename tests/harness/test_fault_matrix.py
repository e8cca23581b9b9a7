"""Every registry system x every injected fault (scripts/fault_matrix.py): through `taskbench run`, the
harness stores the failure with the expected status and reason, within the timeout, and no
process of the run is left alive. docs/reliability.md is the same matrix, generated.

Systems that are not built here are skipped with the registry's reason.
"""

import sys

import pytest

from harness_helpers import REPO
from taskbench.registry import Registry, read_registry_file
from taskbench.registry.locations import find_layout

sys.path.insert(0, str(REPO / "scripts"))
import fault_matrix as faults  # noqa: E402  (beside the script that writes docs/reliability.md from it)

# Built or not: the ones that are not are skipped, saying why. Without a GPU, the GPU entries run
# on the CUDA stand-in where the build made it.
SYSTEMS = faults.on_the_standin(list(Registry(find_layout())), find_layout())


def test_the_matrix_covers_every_registry_entry():
    names = [s.name for path in sorted(REPO.glob("systems/*/system.toml")) for s in read_registry_file(path)]
    assert sorted(s.name for s in SYSTEMS) == sorted(names)
    assert [f.name for f in faults.FAULTS] == ["corrupt", "hang", "kill", "corrupt_last", "corrupt_trivial"]


@pytest.mark.parametrize("fault", faults.FAULTS, ids=lambda f: f.name)
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_fault_is_caught(system, fault, tmp_path, monkeypatch):
    if not system.available:
        pytest.skip(f"{system.name}: {system.reason}")
    monkeypatch.delenv("TASKBENCH_FAULT", raising=False)
    verdict = faults.inject(system, fault, tmp_path / "faults.db")
    assert verdict.run is not None, "the harness stored nothing"
    assert not verdict.problems, f"{verdict.how()}: {verdict.problems}"
    assert not verdict.leftovers, f"still running after the harness returned: {verdict.leftovers}"


def test_a_judge_rejects_a_wrong_outcome():
    """The verdicts can fail: a run stored as ok, or a crash with another reason, is not caught."""
    serial = next(s for s in SYSTEMS if s.name == "serial")
    mpi = next(s for s in SYSTEMS if s.is_mpi)
    ok = {"status": "ok", "reason": "", "exit_code": 0, "wall_seconds": 0.1}
    for fault in faults.FAULTS:
        assert fault.judge(serial, ok), fault.name
    crash = {"status": "crashed", "reason": "killed by SIGSEGV", "exit_code": -11, "wall_seconds": 0.1}
    assert faults.FAULTS_BY_NAME["kill"].judge(serial, crash)
    wrong_rank = {"status": "crashed", "reason": "rank 0 killed by SIGKILL", "exit_code": 137,
                  "wall_seconds": 1.0}
    assert faults.FAULTS_BY_NAME["kill"].judge(mpi, wrong_rank)
    late = {"status": "timeout", "reason": f"exceeded the {faults.HANG_TIMEOUT:g} s timeout",
            "exit_code": -9, "wall_seconds": faults.HANG_TIMEOUT + 30}
    assert faults.FAULTS_BY_NAME["hang"].judge(serial, late)
    # A system whose engine reaps its workers (registry key killed_worker_reason) fails, naming
    # the death in its own words: a crash is not its outcome.
    reaped = next(s for s in SYSTEMS if s.killed_worker_reason and not s.is_mpi)
    killed = {"status": "crashed", "reason": "killed by SIGKILL", "exit_code": -9, "wall_seconds": 1.0}
    assert faults.FAULTS_BY_NAME["kill"].judge(reaped, killed)
    died = {"status": "failed", "reason": f"exit code 1: taskbench: {reaped.killed_worker_reason}", "exit_code": 1,
            "wall_seconds": 1.0}
    assert not faults.FAULTS_BY_NAME["kill"].judge(reaped, died)
    assert faults.FAULTS_BY_NAME["kill"].judge(serial, died)

