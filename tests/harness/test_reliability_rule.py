"""When a METG is a result (measure/reliability.py, docs/harness.md "Noise") on synthetic sweeps
with known answers: a quiet one, one whose deciding sizes ran beside other processes, one run
whole beside them, a bimodal curve, and a campaign whose CPUs' placement moved."""

import dataclasses

from test_noise import PARAMS, analyze, drive, peaks, quiet_run

from taskbench.measure.analysis import analyze_runs
from taskbench.report.tables import metg_table

ONE_REP = dataclasses.replace(PARAMS, reps=1)


def busy(run, load=1.0):
    """The run as measured beside other processes using `load` cores (its figures unchanged:
    what is tested is the judgement, not the slowdown)."""
    return dict(run, background_load=load, background_cpu_seconds=load * run["wall_seconds"])


def long_enough(run):
    """The run lasting long enough for its own background load to count (runner.measurable), on
    a quiet machine (no tick of another process in half a second)."""
    return dict(run, elapsed_seconds=0.5, wall_seconds=0.5, background_load=0.0, background_cpu_seconds=0.0)


def deciding_runs(analysis, system):
    v = analysis.curves[system].summary.values[0]
    return set(v.deciding)


def test_one_quiet_repetition_is_reliable_and_shows_no_spread_or_range():
    runs, _ = drive(ONE_REP, quiet_run)
    analysis = analyze(ONE_REP, runs)
    for curve in analysis.curves.values():
        s = curve.summary
        assert s.reliable and s.spread is None and s.found == 1, s.unreliable
    _, rows = metg_table(analysis)
    assert all(row[3] == "—" and row[4] == "—" for row in rows)  # range, spread


def test_a_disturbed_size_at_the_crossing_makes_the_metg_unreliable():
    runs, _ = drive(ONE_REP, quiet_run)
    runs = [long_enough(r) for r in runs]  # every run measurable: its own load is judged
    quiet = analyze(ONE_REP, runs)
    assert all(c.summary.reliable for c in quiet.curves.values())
    deciding = deciding_runs(quiet, "a")
    assert len(deciding) == 2  # a crossing between two sizes
    disturbed = [busy(r) if r["system"] == "a" and r["iter"] in deciding else r for r in runs]
    analysis = analyze(ONE_REP, disturbed)
    assert analysis.curves["a"].summary.unreliable == ["the sizes it was read from ran beside other processes "
                                                       "(1.00 cores busy)"]
    assert analysis.curves["b"].summary.reliable  # its own sizes were quiet
    # A size away from the crossing, disturbed, changes nothing.
    away = [busy(r) if r["system"] == "a" and r["iter"] == max(x["iter"] for x in runs) else r for r in runs]
    assert analyze(ONE_REP, away).curves["a"].summary.reliable


def test_short_runs_in_a_busy_campaign_are_judged_by_the_campaign():
    runs, _ = drive(ONE_REP, quiet_run)
    analysis = analyze(ONE_REP, [busy(r, 1.2) for r in runs])
    for curve in analysis.curves.values():
        assert curve.summary.unreliable == ["the sizes it was read from ran too briefly to measure other "
                                            "processes' load, and the campaign ran beside them (1.20 cores busy "
                                            "on average)"]
    assert analysis.busy == 1.2
    assert analyze(ONE_REP, runs).busy is None


def test_a_bimodal_curve_is_unreliable():
    runs, _ = drive(ONE_REP, quiet_run)
    # One size well above the crossing loses two thirds of its throughput: the efficiency drops
    # below 50% there and comes back above it before the real crossing.
    a = sorted({r["iter"] for r in runs if r["system"] == "a"}, reverse=True)
    dip = a[1]
    bumpy = [dict(r, flops_per_second=r["flops_per_second"] / 3) if r["system"] == "a" and r["iter"] == dip
             else r for r in runs]
    analysis = analyze(ONE_REP, bumpy)
    reasons = analysis.curves["a"].summary.unreliable
    assert len(reasons) == 1 and reasons[0].startswith("the efficiency crosses 50% 3 times in repetition 1")
    assert analysis.curves["b"].summary.reliable


def test_a_moved_placement_makes_multicore_cpu_metgs_unreliable():
    runs, _ = drive(ONE_REP, quiet_run)
    two_cores = [dict(r, cores=2) if r["system"] == "a" else r for r in runs]
    for probes, moved in (([56.0, 399.0], True), ([56.0, 100.0], False)):
        campaign = {"name": "c", "params": ONE_REP.to_dict(), "status": "done",
                    "machine": {"core_to_core_one_way_ns": probes}}
        analysis = analyze_runs(campaign, two_cores, peaks())
        a, b = analysis.curves["a"].summary, analysis.curves["b"].summary
        if moved:
            assert a.unreliable == ["the core-to-core latency moved from 56 ns to 399 ns during the campaign "
                                    "(the CPUs' placement changed)"]
        else:
            assert a.reliable
        assert b.reliable  # one core: no hand-off between cores to measure
