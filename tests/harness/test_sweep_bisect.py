"""The bisection that sweeps a simulated campaign (measure/sweep/bisect.py), on the synthetic
machine of test_sweep_plan.py (efficiency = work / (work + overhead), exact: a deterministic
curve): it must end between the same two sizes as the adaptive plan, so that the fit reads the
same METG, from the runs its halving or its seed promises, and replay the same on a resume."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_sweep_plan import PEAK, WORK_PER_ITER, params, synthetic_run  # noqa: E402

from taskbench.measure.metg.estimate import estimate  # noqa: E402
from taskbench.measure.peak import PeakTable  # noqa: E402
from taskbench.measure.sweep.bisect import Bisection, crossing_iter, expected_runs, fine_grid  # noqa: E402
from taskbench.measure.sweep.adaptive import AdaptivePlanner  # noqa: E402


def drive(plan, p, overhead=2e-6, fail_at=None, peak_flops=PEAK, fail_status="failed"):
    """Runs a plan to completion on the synthetic machine; (the -iter of each run in order, planner)."""
    planner = plan(p, PeakTable("compute_bound", [{"status": "ok", "cores": 1, "flops_per_second": peak_flops}],
                                processors={}))
    order = []
    while batch := planner.next_batch():
        while pending := [u for u in batch if planner.wants_another_try(u)]:
            for unit in pending:
                order.append(unit[1])
                run = synthetic_run(*unit, overhead=overhead)
                planner.add_try(unit, {"status": fail_status} if unit[1] == fail_at else run)
        planner.finish(batch)
    return order, planner


def metg(planner):
    return estimate(planner._all_curves("a"), 0.5)


def efficient(iterations, overhead):
    work = WORK_PER_ITER * iterations
    return work / (work + overhead) >= 0.5


def test_the_grid_is_the_sizes_the_adaptive_plan_ends_on():
    grid = fine_grid(params())
    assert grid[0] == 1 << 16 and grid[-1] == 1 and grid == sorted(set(grid), reverse=True)
    # 65536 = 4^8: 8 coarse steps of 4 sizes (sqrt(2) apart, rounded) and the last size, less the
    # one that rounds onto 1 in the last step (4, 3, 2, 1)
    assert len(grid) == 8 * 4 + 1 - 1
    for overhead in (1e-7, 2e-6, 3e-6, 1e-5):
        order, _ = drive(AdaptivePlanner, params(), overhead)
        assert set(order) <= set(grid), sorted(set(order) - set(grid))


@pytest.mark.parametrize("overhead", [1e-7, 2e-6, 3e-6, 1e-5, 7.7e-5])
def test_it_reads_the_adaptive_plans_metg_from_fewer_runs(overhead):
    adaptive_runs, adaptive = drive(AdaptivePlanner, params(), overhead)
    runs, bisection = drive(Bisection, params(), overhead)
    assert metg(bisection).seconds == metg(adaptive).seconds  # the same two sizes, to the last bit
    assert metg(bisection).deciding == metg(adaptive).deciding
    # halving a 32-size grid: the start size and at most ceil(log2(33)) = 6 probes, never more
    # than the adaptive plan (which needs as few only where the crossing is near the start)
    assert runs[0] == 1 << 16 and len(runs) <= 1 + 6 == expected_runs(params())
    assert len(runs) <= len(adaptive_runs)


def test_it_stops_with_two_grid_neighbours_around_the_threshold():
    grid = fine_grid(params())
    runs, _ = drive(Bisection, params(), 2e-6)
    above = min((it for it in runs if efficient(it, 2e-6)))
    below = max((it for it in runs if not efficient(it, 2e-6)))
    assert grid.index(below) - grid.index(above) == 1, (above, below)
    # the model crosses at work == overhead: -iter 400, between 512 and 362
    assert (above, below) == (512, 362)


def test_a_seed_at_the_crossing_brackets_it_in_two_runs_after_the_peak():
    runs, bisection = drive(Bisection, params(seeds={"a": 400.0}), 2e-6)
    assert runs == [1 << 16, 512, 362]
    assert metg(bisection).seconds == metg(drive(AdaptivePlanner, params(), 2e-6)[1]).seconds
    assert expected_runs(params(seeds={"a": 400.0})) == 3


@pytest.mark.parametrize("moved", [1.41, 1 / 1.41, 4.0, 1 / 16.0])
def test_a_seed_where_the_crossing_was_finds_where_it_moved(moved):
    """The previous node count's crossing, the curve since moved by `moved` in -iter: the
    gallop from the seed still ends between the adaptive plan's two sizes."""
    overhead = 2e-6 * moved
    runs, bisection = drive(Bisection, params(seeds={"a": 400.0}), overhead)
    assert metg(bisection).seconds == metg(drive(AdaptivePlanner, params(), overhead)[1]).seconds
    assert runs[1] == 512  # the seed's size first, after the peak
    steps = abs(math.log(moved) / math.log(math.sqrt(2)))
    assert len(runs) <= 3 + 2 * math.ceil(math.log2(steps + 1)), runs


def test_a_curve_efficient_at_the_smallest_size_ends_there_as_a_bound():
    runs, bisection = drive(Bisection, params(), 1e-12)
    assert runs[-1] == 1 and metg(bisection).status == "unbracketed"


def test_a_start_size_under_the_threshold_stops_and_says_why():
    runs, bisection = drive(Bisection, params(), 2e-6, peak_flops=PEAK * 10)
    assert runs == [1 << 16]
    assert "--start-iter" in bisection.states["a"].note


def test_a_failed_probe_stops_the_bisection_with_its_size():
    runs, bisection = drive(Bisection, params(), 2e-6, fail_at=256)
    assert runs[-1] == 256 and "-iter 256 failed" in bisection.states["a"].note
    assert "every repetition failed" in bisection.states["a"].note


def test_a_probe_past_the_timeout_is_said_to_be_the_timeout_not_a_deterministic_failure():
    """A timeout depends on this machine (its load, the --timeout), even for a simulated run."""
    runs, bisection = drive(Bisection, params(), 2e-6, fail_at=256, fail_status="timeout")
    assert runs[-1] == 256 and "a longer --timeout" in bisection.states["a"].note
    assert "same way every time" not in bisection.states["a"].note


def test_a_replay_over_the_same_results_plans_the_same_runs():
    first, _ = drive(Bisection, params(seeds={"a": 1000.0}), 2e-6)
    again, _ = drive(Bisection, params(seeds={"a": 1000.0}), 2e-6)
    assert first == again


def test_the_crossing_iter_is_where_the_metg_crossed_between_its_two_sizes():
    _, bisection = drive(Bisection, params(), 2e-6)
    summary = metg(bisection)
    points = bisection._all_curves("a")[0]
    at = crossing_iter(points, summary.seconds, 0.5)
    assert 362 < at < 512
    assert abs(math.log(at / 400)) < 0.05  # the model's crossing, to the interpolation's error
    assert crossing_iter(points[:1], summary.seconds, 0.5) is None  # one point brackets nothing


def test_each_node_count_seeds_the_next_with_its_crossings_only_where_it_found_one():
    from types import SimpleNamespace
    from taskbench.measure.sweep.bisect import crossings
    _, bisection = drive(Bisection, params(), 2e-6)
    found = metg(bisection)
    curve = SimpleNamespace(summary=found, reps=bisection._all_curves("a"))
    bound = SimpleNamespace(summary=SimpleNamespace(status="unbracketed", seconds=1e-7), reps=curve.reps)
    analysis = SimpleNamespace(params=params(), curves={"a": curve, "b": bound})
    seeds = crossings(analysis)
    assert list(seeds) == ["a"] and 362 < seeds["a"] < 512
    # seeded with it, the next bisection of the same curve needs the peak and two probes
    runs, _ = drive(Bisection, params(seeds=seeds), 2e-6)
    assert runs == [1 << 16, 512, 362]
