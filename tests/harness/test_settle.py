"""Repetitions added around the crossing (measure/sweep/settle.py) on synthetic machines: until the
interval's target, within the budget, interleaved across systems, replayed the same on resume,
and a disturbed repetition outvoted."""

import dataclasses
import random

from test_noise import PARAMS as NOISE_PARAMS, analyze, disturb, drive as drive_tries, quiet_run
from test_sweep_plan import PEAK, WORK_PER_ITER

from taskbench.measure.sweep import settle
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams
from taskbench.measure.sweep.adaptive import AdaptivePlanner

OVERHEAD = {"a": 2e-6, "b": 5e-6}


def noisy_run(system, iterations, rep, attempt, sigma=0.08):
    """Efficiency w / (w + o) times a noise of `sigma`, fixed by the unit and try."""
    work = WORK_PER_ITER * iterations
    noise = random.Random(f"{system}/{iterations}/{rep}/{attempt}").gauss(0, sigma)
    eff = max(0.01, work / (work + OVERHEAD[system]) * (1 + noise))
    return {"system": system, "status": "ok", "cores": 1, "iter": iterations, "flops_per_second": PEAK * eff,
            "granularity_seconds": work / eff, "wall_seconds": 0.01, "elapsed_seconds": 0.008}


def drive(params, model=noisy_run):
    """The planner to its end: every batch's units, and the planner."""
    peaks = PeakTable("compute_bound", [{"status": "ok", "cores": 1, "flops_per_second": PEAK}])
    planner = AdaptivePlanner(params, peaks)
    batches = []
    while batch := planner.next_batch():
        batches.append(list(batch))
        while pending := [u for u in batch if planner.wants_another_try(u)]:
            for unit in pending:
                planner.add_try(unit, model(*unit, planner.attempts(unit)))
        planner.finish(batch)
    return batches, planner


def params(**kw):
    return SweepParams(**{**dict(systems=["a", "b"], reps=3, tries=3, start_iter=1 << 16, threshold=0.5), **kw})


def fitted(planner, system):
    """The METG the planner stopped at, as settle.next_sizes computed it (and the analysis of the
    campaign, "" here, would)."""
    from taskbench.measure.metg import fit as metg_fit
    from taskbench.measure.metg.estimate import estimate
    return estimate(planner._all_curves(system), 0.5, seed=metg_fit.seed_of(f"/{system}"))


def test_repetitions_of_the_two_sizes_around_the_crossing_are_added_until_the_target():
    batches, planner = drive(params())
    for system in ("a", "b"):
        state = planner.states[system]
        added = sorted({(it, rep) for batch in batches for s, it, rep in batch if s == system and rep >= 3})
        assert state.added >= settle.MIN_REPS - 3 and {rep for _, rep in added} == set(range(3, 3 + state.added))
        summary = fitted(planner, system)
        assert summary.half_width <= 0.05
        assert state.settled == (f"{state.added} repetitions added at -iter {min(summary.deciding)} and "
                                 f"{max(summary.deciding)}, the sweep's running estimate within the target ±5%")
        # The console's line states the figure as the table does (units.metg, units.half_width).
        assert settle.line(summary, state.settled) == (f"METG {summary.text}, ±{summary.half_width:.1%}; "
                                                       f"{state.settled}")
        # Two sizes per added repetition, each run up to `tries` times like any point near the threshold.
        for it, rep in added:
            assert len(planner.tries[(system, it, rep)]) == 3
        assert all(len({it for it, r in added if r == rep}) == 2 for rep in range(3, 3 + state.added))


def test_every_system_s_added_repetition_runs_in_one_batch():
    batches, planner = drive(params())
    settling = [batch for batch in batches if any(rep >= 3 for _, _, rep in batch)]
    both = [b for b in settling if {s for s, _, _ in b} == {"a", "b"}]
    assert both and both[0] == settling[0]  # they start together, interleaved


def test_the_budget_stops_it_and_says_so():
    _, planner = drive(params(interval_budget=0.0))
    for state in planner.states.values():
        assert state.added == 0
        assert state.settled.startswith("the budget for added repetitions ran out (0.0 s, 0 x the sweep's own")
    _, planner = drive(params(interval_budget=0.5, target_interval=0.001))
    spent = planner._wall(lambda u: u[2] >= 3)
    sweep = planner._wall(lambda u: u[2] < 3)
    assert 0.5 * sweep <= spent <= 0.5 * sweep + 2 * 3 * 2 * 0.01  # at most one round more than the budget


def test_no_target_adds_nothing():
    batches, planner = drive(params(target_interval=0.0))
    assert all(rep < 3 for batch in batches for _, _, rep in batch)
    assert all(state.settled == "" for state in planner.states.values())


def test_a_replay_over_the_same_results_plans_the_same_runs():
    first, _ = drive(params())
    again, _ = drive(params())
    assert first == again


def test_a_disturbed_repetition_is_outvoted_by_the_added_ones():
    """Every run of repetition 1 ran 1.3 times slower beside other processes: without added
    repetitions the interval spans both and the METG is unreliable; with them, it is a result
    within 5% of the quiet machine's."""
    def rep_one_disturbed(system, iterations, rep, attempt):
        run = quiet_run(system, iterations, rep, attempt)
        return disturb(run, slowdown=1.3) if rep == 1 else run

    base = dataclasses.replace(NOISE_PARAMS, target_interval=0.0)
    quiet = analyze(base, drive_tries(base, quiet_run)[0]).curves["a"].summary
    alone = analyze(base, drive_tries(base, rep_one_disturbed)[0]).curves["a"].summary
    assert not alone.reliable
    settled = dataclasses.replace(NOISE_PARAMS, target_interval=0.05)
    runs, planner = drive_tries(settled, rep_one_disturbed)
    summary = analyze(settled, runs).curves["a"].summary
    assert planner.states["a"].added >= 3
    assert summary.reliable and abs(summary.seconds / quiet.seconds - 1) < 0.05
