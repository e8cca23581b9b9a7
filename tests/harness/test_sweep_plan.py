"""The adaptive sweep plan on a synthetic machine (no executables): coarse steps, stopping,
refinement around the crossing, interleaving, and a deterministic replay for --resume."""

import math

from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams
from taskbench.measure.sweep.adaptive import AdaptivePlanner

OVERHEAD = 2e-6  # seconds of runtime overhead per task in the synthetic model
WORK_PER_ITER = 5e-9  # seconds of kernel per -iter per task
PEAK = 25e9


def synthetic_run(system, iterations, rep, overhead=OVERHEAD, noise=0.0):
    work = WORK_PER_ITER * iterations
    eff = work / (work + overhead) * (1 + noise * ((rep % 3) - 1))
    return {"status": "ok", "cores": 1, "iter": iterations, "flops_per_second": PEAK * eff,
            "granularity_seconds": work / eff if eff else 1.0, "wall_seconds": 0.01}


def drive(params, model=synthetic_run, stored=None):
    """Runs the planner to completion; returns the ordered list of planned (system, iter, rep)."""
    planner = AdaptivePlanner(params, PeakTable("compute_bound", stored or
                                                [{"status": "ok", "cores": 1, "flops_per_second": PEAK}]))
    order = []
    while batch := planner.next_batch():
        while pending := [u for u in batch if planner.wants_another_try(u)]:
            for unit in pending:
                order.append(unit)
                planner.add_try(unit, model(*unit))
        planner.finish(batch)
    return order, planner


def params(**kw):
    """The sweep's own plan: no repetitions added around the crossing (test_settle.py)."""
    base = dict(systems=["a"], reps=1, start_iter=1 << 16, threshold=0.5, tries=1, target_interval=0.0)
    base.update(kw)
    return SweepParams(**base)


def test_coarse_steps_divide_by_four_until_well_below_threshold():
    order, _ = drive(params(refine_points=0))
    iters = [it for _, it, _ in order]
    assert iters[:4] == [65536, 16384, 4096, 1024]
    assert all(a == 4 * b for a, b in zip(iters, iters[1:]))
    # Efficiency at the last size is below threshold/2, at the one before it is not.
    last, before = synthetic_run("a", iters[-1], 0), synthetic_run("a", iters[-2], 0)
    assert last["flops_per_second"] / PEAK < 0.25 <= before["flops_per_second"] / PEAK


def test_refinement_adds_sizes_inside_the_bracketing_step():
    order, planner = drive(params(refine_points=3))
    coarse = planner.states["a"].coarse
    refined = [it for _, it, _ in order if it not in coarse]
    # The 50% crossing of the model is at work == overhead: -iter = 400, between 1024 and 256.
    assert refined and all(256 < it < 1024 for it in refined)
    assert len(refined) == 3 and len(set(refined)) == 3
    ratios = [math.log(a / b) for a, b in zip([1024, *refined], [*refined, 256])]
    assert max(ratios) - min(ratios) < 0.1  # evenly spaced in log(-iter)


def test_runs_interleave_systems_and_repetitions():
    order, _ = drive(params(systems=["a", "b"], reps=2, refine_points=0))
    first_batch = order[:4]
    assert {s for s, _, _ in first_batch} == {"a", "b"}
    assert [r for _, _, r in first_batch] == [0, 0, 1, 1]
    assert first_batch[0][0] != first_batch[2][0]  # the order rotates per repetition


def test_each_unit_is_planned_once_without_tries():
    order, _ = drive(params(systems=["a", "b"], reps=3))
    assert len(order) == len(set(order))


def test_only_sizes_near_the_threshold_are_tried_again():
    order, planner = drive(params(reps=2, tries=3, refine_points=0))
    counts = {u: order.count(u) for u in set(order)}
    for (system, it, rep), n in counts.items():
        eff = planner.efficiency_of(planner.results[(system, it, rep)])
        assert n == (3 if 0.2 <= eff <= 0.8 else 1), (it, eff, n)


def test_the_fastest_try_counts():
    calls = {}

    def jittery(s, it, r):
        n = calls[(s, it, r)] = calls.get((s, it, r), 0) + 1
        return synthetic_run(s, it, r, overhead=OVERHEAD * (3 if n == 1 else 1))

    _, planner = drive(params(tries=3, refine_points=0), jittery)
    unit = ("a", 1024, 0)  # near the threshold: retried, and the undisturbed try wins
    assert planner.results[unit]["flops_per_second"] == synthetic_run("a", 1024, 0)["flops_per_second"]


def test_disagreeing_repetitions_are_rechecked():
    # Repetition 1's first tries are disturbed (3x overhead); its later tries are not.
    calls = {}

    def disturbed(s, it, r):
        n = calls[(s, it, r)] = calls.get((s, it, r), 0) + 1
        return synthetic_run(s, it, r, overhead=OVERHEAD * (3 if r == 1 and n <= 2 else 1))

    order, planner = drive(params(reps=2, tries=2, refine_points=3, max_spread=0.1), disturbed)
    assert max(order.count(u) for u in set(order)) > 2  # more than `tries`: rechecked
    from taskbench.measure.metg.methods import metg_of_curve
    values = [metg_of_curve(planner._curve("a", rep), 0.5).seconds for rep in (0, 1)]
    assert abs(values[0] - values[1]) / values[0] < 0.1


def test_replay_over_stored_results_plans_the_same_runs():
    noisy = lambda s, it, r: synthetic_run(s, it, r, noise=0.2)  # noqa: E731
    first, _ = drive(params(systems=["a", "b"], reps=3), noisy)
    again, _ = drive(params(systems=["a", "b"], reps=3), noisy)
    assert first == again


def test_goes_up_when_the_first_size_is_not_efficient():
    slow = lambda s, it, r: synthetic_run(s, it, r, overhead=400e-6)  # noqa: E731
    order, planner = drive(params(start_iter=1 << 12, refine_points=0, max_up=2), slow)
    assert planner.states["a"].ups == 2
    assert [it for _, it, _ in order[:3]] == [4096, 16384, 65536]


def test_stops_after_two_failed_sizes():
    failing = lambda s, it, r: {"status": "validation", "cores": 1, "iter": it}  # noqa: E731
    order, planner = drive(params(reps=2), failing)
    assert len(order) == 4
    assert "failed" in planner.states["a"].note


def test_outliers_far_below_the_other_repetitions_are_retried():
    # Repetition 0's first run at -iter 256 is disturbed far below the band (x10 overhead).
    calls = {}

    def one_bad(s, it, r):
        n = calls[(s, it, r)] = calls.get((s, it, r), 0) + 1
        bad = (it, r, n) == (256, 0, 1)
        return synthetic_run(s, it, r, overhead=OVERHEAD * (10 if bad else 1))

    order, planner = drive(params(reps=3, tries=3, refine_points=3), one_bad)
    assert order.count(("a", 256, 0)) > 1
    ok = synthetic_run("a", 256, 0)["flops_per_second"]
    assert planner.results[("a", 256, 0)]["flops_per_second"] == ok


def test_new_brackets_found_late_are_refined():
    # Efficiency crosses 50% at -iter 400; repetition 1 is disturbed on every first try, so its
    # coarse bracket differs; every repetition still ends with fine steps around its crossing.
    order, planner = drive(params(reps=2, tries=3, refine_points=3))
    sizes = sorted({it for _, it, _ in order}, reverse=True)
    around = [it for it in sizes if 256 <= it <= 1024]
    assert len(around) >= 5  # 1024, 3 refined sizes, 256


def test_flags_describe_the_graph():
    p = params(steps=100, width=2, radix=5, scratch=4096, extra_flags=["-output", "64"])
    flags = p.flags(256)
    assert flags[flags.index("-iter") + 1] == "256"
    assert flags[flags.index("-radix") + 1] == "5"
    assert flags[-2:] == ["-output", "64"]
    assert SweepParams.from_dict({**p.to_dict(), "unknown_future_key": 1}) == p


def test_later_tries_that_lift_the_smallest_size_send_the_sweep_down_again():
    """The quick start's native_dynamic: the first tries at the smallest size were disturbed
    (a quarter of the threshold, under the x/2 stop rule), later tries there reached 50%; the
    sweep steps down again, so the METG is bracketed, never published as "or less"."""
    seen = {}

    def disturbed_first(system, iterations, rep):
        seen[(iterations, rep)] = seen.get((iterations, rep), 0) + 1
        run = synthetic_run(system, iterations, rep)
        if seen[(iterations, rep)] == 1 and iterations <= 1024:  # its first try, 3.2 times slower
            run = dict(run, flops_per_second=run["flops_per_second"] / 3.2,
                       granularity_seconds=run["granularity_seconds"] * 3.2)
        return run

    order, planner = drive(params(reps=2, tries=3, refine_points=2), disturbed_first)
    lowest = min(it for _, it, _ in order)
    assert lowest < 1024  # below where the first, disturbed tries (22%: under x/2) had stopped it
    best = [planner.efficiency_of(planner.results[("a", lowest, rep)]) for rep in range(2)]
    assert max(best) < 0.25  # where every repetition is below x/2 after all
    from taskbench.measure.metg.estimate import estimate
    summary = estimate({rep: planner._curve("a", rep) for rep in range(2)}, 0.5)
    assert summary.status == "found"
