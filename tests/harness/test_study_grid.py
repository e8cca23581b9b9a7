"""Study presets: the registry of presets, and the exact grid of runs each one plans."""

import pytest
from harness_helpers import FakeRegistry, FakeSystem

from taskbench import studies
from taskbench.errors import UserError
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout
from taskbench.studies import execute
from taskbench.studies.presets import discovery, imbalance
from taskbench.studies.preset import GridRun


def _members(study) -> list[str]:
    """The systems the study runs by default: the registry's members of it."""
    return study.default_systems(Registry(find_layout()))


def test_registry_of_presets():
    assert list(studies.PRESETS) == ["imbalance", "discovery", "systems", "dependencies", "patterns", "graphs",
                                     "communication", "scaling", "gpu_offload"]
    assert studies.get("imbalance") is imbalance.STUDY
    with pytest.raises(UserError, match=r"unknown study 'nope' \(known: imbalance, discovery, systems"):
        studies.get("nope")


def test_default_systems_are_the_registry_members_by_role():
    """A study names roles; the registry entries say which systems play them (key `studies`):
    in the study's role order, then the registry's."""
    registry = FakeRegistry(FakeSystem("b", studies={"imbalance": "tasks"}), FakeSystem("c"),
                            FakeSystem("a", studies={"imbalance": "static_loop", "discovery": "persistent"}),
                            FakeSystem("d", studies={"imbalance": "tasks"}))
    assert imbalance.STUDY.default_systems(registry) == ["a", "b", "d"]
    assert discovery.STUDY.default_systems(registry) == ["a"]
    wrong = FakeRegistry(FakeSystem("x", studies={"imbalance": "teacher"}))
    with pytest.raises(UserError, match=r"systems/x/system.toml: system 'x': study imbalance has no role "
                                        r"'teacher' \(its roles: static_loop, "):
        imbalance.STUDY.default_systems(wrong)


def test_imbalance_quick_grid_is_exact():
    runs = imbalance.grid(["a", "b"], quick=True, reps=2)
    assert [r.key for r in runs] == [
        f"{s}/pattern={p}/imbalance={x}/rep={rep}"
        for rep in (0, 1) for p in ("stencil_1d", "nearest") for x in (0.0, 2.0) for s in ("a", "b")]
    assert runs[0].flags == ("-steps", "6", "-width", "5", "-type", "stencil_1d", "-kernel",
                             "load_imbalance", "-iter", "1024", "-imbalance", "0")
    assert runs[-1].flags == ("-steps", "6", "-width", "5", "-type", "nearest", "-radix", "5", "-kernel",
                              "load_imbalance", "-iter", "1024", "-imbalance", "2")
    assert not any(r.breakdown for r in runs)


def test_imbalance_full_grid():
    runs = imbalance.grid(_members(imbalance.STUDY), quick=False, reps=imbalance.STUDY.reps)
    assert len(runs) == 8 * 2 * 4 * 5
    assert {(r.point["pattern"], r.point["imbalance"]) for r in runs} == {
        (p, x) for p in ("stencil_1d", "nearest") for x in (0.0, 0.5, 1.0, 2.0)}
    one = next(r for r in runs if r.key == "mpi_p2p/pattern=nearest/imbalance=0.5/rep=4")
    assert one.flags == ("-steps", "300", "-width", "8", "-type", "nearest", "-radix", "5", "-kernel",
                         "load_imbalance", "-iter", "65536", "-imbalance", "0.5")
    assert len({r.key for r in runs}) == len(runs)


def test_discovery_grids_ask_for_the_breakdown():
    quick = discovery.grid(["native", "openmp_task"], quick=True, reps=1)
    assert [(r.key, r.breakdown) for r in quick] == [
        ("native/iter=64/rep=0", True), ("openmp_task/iter=64/rep=0", True),
        ("native/iter=1024/rep=0", True), ("openmp_task/iter=1024/rep=0", True)]
    assert quick[0].flags == ("-steps", "20", "-width", "4", "-type", "stencil_1d", "-kernel",
                              "compute_bound", "-iter", "64")
    full = discovery.grid(_members(discovery.STUDY), quick=False, reps=discovery.STUDY.reps)
    assert len(full) == 4 * 3 * 5
    assert sorted({r.point["iter"] for r in full}) == [256, 2048, 16384]
    assert {r.flags[1] for r in full} == {"1000"}


def test_planned_run_round_trips_through_json_params():
    run = GridRun("native", {"pattern": "nearest", "imbalance": 0.5}, 1, ("-steps", "3"), True)
    assert GridRun.from_dict(run.to_dict()) == run


def test_plan_keeps_unavailable_systems_with_their_reason_and_drops_breakdown_it_cannot_have():
    registry = FakeRegistry(FakeSystem("native", breakdown={"args": ["-breakdown"], "env": {}, "requires": []}),
                         FakeSystem("openmp_task"), FakeSystem("gone", False, "binary missing"))
    params = execute.campaign_params(discovery.STUDY, registry, None, ["native", "openmp_task", "gone"], True, 1, 60, 2)
    assert params["unavailable"] == {"gone": "binary missing"}
    assert params["no_breakdown"] == {"openmp_task": "openmp_task reports no work / overhead / idle breakdown "
                                     "(taskbench has no tool for its runtime): its runs show their times only"}
    grid = [GridRun.from_dict(d) for d in params["grid"]]
    assert {r.system for r in grid} == {"native", "openmp_task"}
    assert all(r.breakdown == (r.system == "native") for r in grid)
    assert params["systems"] == ["native", "openmp_task", "gone"]
    with pytest.raises(UserError, match="unknown system 'typo'"):
        execute.campaign_params(discovery.STUDY, registry, None, ["typo"], True, 1, 60, 2)
    with pytest.raises(UserError, match="none of gone is available"):
        execute.campaign_params(discovery.STUDY, registry, None, ["gone"], True, 1, 60, 2)


def test_order_interleaves_each_repetition_reproducibly():
    grid = imbalance.grid(["a", "b", "c"], quick=True, reps=2)
    order = execute._order(grid, "camp")
    assert order == execute._order(grid, "camp")
    assert [r.rep for r in order] == [0] * 12 + [1] * 12
    assert sorted(r.key for r in order) == sorted(r.key for r in grid)
    assert order[:12] != grid[:12]  # shuffled, not the preset's order


def test_retry_round_gives_noisy_points_one_more_try():
    grid = discovery.grid(["a", "b", "c"], quick=True, reps=2)

    def run(key, elapsed, background):
        return {"key": key, "status": "ok", "elapsed_seconds": elapsed, "background_load": background,
                "rep": int(key.rsplit("=", 1)[1])}
    runs = [run("a/iter=64/rep=0", 1.0, 0.6), run("a/iter=64/rep=1", 1.1, 0.0),  # fastest was noisy
            run("b/iter=64/rep=0", 0.05, 0.6),  # too short for the load to mean anything
            run("c/iter=64/rep=0", 1.0, 0.1), run("c/iter=64/rep=1", 2.0, 1.5)]  # fastest was quiet
    assert [r.key for r in execute.retry_round(grid, runs, 0)] == ["a/iter=64/rep=2"]
    # Round 1 judges the runs before it: the quiet try of round 0 settles point a...
    settled = runs + [run("a/iter=64/rep=2", 0.9, 0.0)]
    assert execute.retry_round(grid, settled, 1) == []
    # ...while round 0, replayed on resume, judges as it did the first time: without its own
    # run and later ones, already stored.
    later = settled + [run("a/iter=64/rep=3", 0.1, 0.0)]
    assert [r.key for r in execute.retry_round(grid, later, 0)] == ["a/iter=64/rep=2"]
