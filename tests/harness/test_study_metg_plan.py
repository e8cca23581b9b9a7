"""METG studies (the Task Bench paper's figures): the exact sweeps each one plans, heavy engines
reduced in --quick, unavailable systems kept with their reason, and the scaling grid."""

import pytest
from harness_helpers import FakeRegistry, FakeSystem

from taskbench.errors import UserError
from taskbench.measure.sweep.params import SweepParams
from taskbench.studies import metg_execute
from taskbench.studies.presets import scaling, taskbench_paper


REGISTRY = FakeRegistry(FakeSystem("serial"), FakeSystem("native"), FakeSystem("ray", heavy=True),
                        FakeSystem("gone", False, "binary missing"))


def _sweeps(study, systems, quick, reps=1, cores=2):
    params = metg_execute.campaign_params(study, REGISTRY, systems, quick, reps, 60.0, cores, "P")
    return params, [(s["campaign"], s["value"], SweepParams.from_dict(s["params"])) for s in params["sweeps"]]


def test_dependencies_plans_a_nearest_sweep_per_radix_on_wide_graphs():
    params, sweeps = _sweeps(taskbench_paper.DEPENDENCIES, ["serial", "native", "gone"], quick=True)
    assert params["unavailable"] == {"gone": "binary missing"} and params["systems"] == ["serial", "native", "gone"]
    assert [(name, value) for name, value, _ in sweeps] == [
        (f"P-radix{r}", r) for r in (0, 1, 3, 5, 7, 9)]
    for _, radix, p in sweeps:
        assert p.systems == ["serial", "native"]
        assert (p.reps, p.tries, p.steps, p.refine_points, p.start_iter) == (1, 1, 100, 1, 16384)
        assert p.flags(64) == ["-steps", "100", "-width", "16", "-type", "nearest", "-kernel", "compute_bound",
                               "-iter", "64", "-radix", str(radix)]
    _, full = _sweeps(taskbench_paper.DEPENDENCIES, ["serial"], quick=False, reps=3)
    assert {(p.steps, p.reps, p.tries, p.rechecks, p.start_iter) for _, _, p in full} == {(1000, 3, 3, 2, 65536)}


def test_systems_quick_gives_heavy_engines_a_shorter_sweep_of_their_own():
    params, sweeps = _sweeps(taskbench_paper.SYSTEMS, ["serial", "ray", "native"], quick=True)
    assert [(name, p.systems, p.steps, p.width) for name, _, p in sweeps] == [
        ("P-stencil_1d", ["serial", "native"], 100, 2), ("P-stencil_1d-heavy", ["ray"], 25, 2)]
    assert params["notes"] == ["--quick: ray run 1/4 of the timesteps, in sweeps of their own "
                               "(their start-up costs seconds a run)"]
    params, sweeps = _sweeps(taskbench_paper.SYSTEMS, ["serial", "ray"], quick=False, cores=4)
    assert [(name, p.systems, p.steps, p.width) for name, _, p in sweeps] == [
        ("P-stencil_1d", ["serial", "ray"], 1000, 4)]
    assert params["notes"] == []


def test_systems_study_asks_for_every_registered_system():
    assert taskbench_paper.every_system(REGISTRY) == ["serial", "native", "ray", "gone"]


def test_patterns_graphs_and_communication_sweeps():
    _, patterns = _sweeps(taskbench_paper.PATTERNS_STUDY, ["serial"], quick=True)
    assert [(v, p.pattern, p.radix) for _, v, p in patterns] == [
        ("trivial", "trivial", None), ("stencil_1d", "stencil_1d", None), ("fft", "fft", None),
        ("tree", "tree", None), ("nearest r5", "nearest", 5), ("spread r5", "spread", 5),
        ("random_nearest r5", "random_nearest", 5)]
    _, graphs = _sweeps(taskbench_paper.GRAPHS_STUDY, ["serial"], quick=True)
    one = ["-steps", "100", "-width", "16", "-type", "nearest", "-kernel", "compute_bound", "-iter", "8",
           "-radix", "5"]
    assert [p.flags(8) for _, _, p in graphs] == [one, one + ["-and"] + one, one + (["-and"] + one) * 3]
    _, quick = _sweeps(taskbench_paper.COMMUNICATION, ["serial"], quick=True)
    assert [(v, p.graphs, p.flags(8)[-2:]) for _, v, p in quick] == [
        (16, 1, ["-output", "16"]), (1024, 1, ["-output", "1024"]), (65536, 1, ["-output", "65536"])]
    _, full = _sweeps(taskbench_paper.COMMUNICATION, ["serial"], quick=False)
    assert [v for _, v, _ in full] == [16, 64, 256, 1024, 4096, 16384, 65536]
    assert {p.graphs for _, _, p in full} == {4} and full[0][2].flags(8).count("-output") == 4


def test_plan_errors():
    with pytest.raises(UserError, match="unknown system 'nope'"):
        _sweeps(taskbench_paper.DEPENDENCIES, ["serial", "nope"], quick=True)
    with pytest.raises(UserError, match="none of gone is available here"):
        _sweeps(taskbench_paper.DEPENDENCIES, ["gone"], quick=True)


def test_scaling_grid_weak_and_strong_over_the_cores():
    assert scaling.core_counts(1) == [1] and scaling.core_counts(6) == [1, 2, 4, 6]
    runs = scaling.grid(["native", "mpi_p2p"], quick=True, reps=1, available=2)
    assert len(runs) == 2 * 2 * 2 * 2
    by_key = {r.key: r for r in runs}
    weak = by_key["native/mode=weak/iter=1024/cores=1/rep=0"]
    strong = by_key["mpi_p2p/mode=strong/iter=65536/cores=1/rep=0"]
    assert (weak.cores, weak.flags[3]) == (1, "1")  # one column per core
    assert (strong.cores, strong.flags[3]) == (1, "2")  # every core count runs the same graph
    assert by_key["native/mode=weak/iter=65536/cores=2/rep=0"].flags[3] == "2"


def test_scaling_runs_mpi_systems_on_ranks_and_the_others_on_threads():
    from taskbench.launch import LaunchOptions
    from taskbench.studies.execute import launch_options

    class Mpi:
        is_mpi = True

    class Local:
        is_mpi = False

    assert launch_options(Mpi, 2) == LaunchOptions(ranks=2)
    assert launch_options(Local, 2) == LaunchOptions(threads_per_rank=2)
    assert launch_options(Local, None) == LaunchOptions()
