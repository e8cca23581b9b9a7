"""When a METG is a result (measure/metg/reliability.py, docs/harness.md "Noise") on synthetic sweeps
with known answers: a quiet one, one whose deciding runs ran beside other processes, a campaign
busy elsewhere than at the crossing, repetitions that disagree, and a campaign whose CPUs'
placement changed under it."""

import dataclasses

from test_noise import PARAMS, analyze, drive, peaks, quiet_run

from taskbench.measure.analysis import analyze_runs
from taskbench.report.tables import metg_table

ONE_REP = dataclasses.replace(PARAMS, reps=1)


def busy(run, load=1.0):
    """The run as measured beside other processes using `load` cores (its figures unchanged:
    what is tested is the judgement, not the slowdown)."""
    return dict(run, background_load=load, background_cpu_seconds=load * run["wall_seconds"])


def deciding(analysis, system):
    return set(analysis.curves[system].summary.deciding)


def test_a_quiet_sweep_is_reliable_with_its_interval():
    analysis = analyze(PARAMS, drive(PARAMS, quiet_run)[0])
    for curve in analysis.curves.values():
        s = curve.summary
        assert s.reliable and s.low < s.seconds < s.high and s.half_width < 0.10, s.unreliable
    columns, rows = metg_table(analysis)
    assert columns[2] == "METG(50%) (95% interval)"
    assert all(row[2].endswith(")") and row[3].startswith("±") for row in rows)


def test_one_repetition_has_no_interval_and_is_not_marked_for_it():
    analysis = analyze(ONE_REP, drive(ONE_REP, quiet_run)[0])
    for curve in analysis.curves.values():
        assert curve.summary.reliable and curve.summary.low is None
    _, rows = metg_table(analysis)
    assert all(row[3] == "—" and "no interval: one repetition" in row[-1] for row in rows)


def test_disturbed_deciding_runs_make_the_metg_unreliable_and_are_named():
    runs, _ = drive(PARAMS, quiet_run)
    quiet = analyze(PARAMS, runs)
    sizes = deciding(quiet, "a")
    assert len(sizes) == 2  # a crossing between two sizes
    disturbed = [busy(r) if r["system"] == "a" and r["iter"] in sizes else r for r in runs]
    reasons = analyze(PARAMS, disturbed).curves["a"].summary.unreliable
    low, high = sorted(sizes)
    assert len(reasons) == 1 and reasons[0].startswith(
        f"the 6 runs it was read from (-iter {low} and {high}, each repetition's counted try) ran beside other "
        "processes: 1.00 ± 0.03 cores busy (/proc/stat over those runs; above 0.25)")
    assert analyze(PARAMS, disturbed).curves["b"].summary.reliable  # its own sizes were quiet
    # A size away from the crossing, disturbed, changes nothing.
    top = max(r["iter"] for r in runs)
    away = [busy(r) if r["system"] == "a" and r["iter"] == top else r for r in runs]
    assert analyze(PARAMS, away).curves["a"].summary.reliable


def test_a_busy_campaign_alone_never_marks_a_figure():
    """Other processes used 1.2 cores during every run but those at the crossing: the title says
    the machine was busy, every figure stays a result."""
    runs, _ = drive(PARAMS, quiet_run)
    sizes = {s: deciding(analyze(PARAMS, runs), s) for s in ("a", "b")}
    elsewhere = [r if r["iter"] in sizes[r["system"]] else busy(r, 1.2) for r in runs]
    analysis = analyze(PARAMS, elsewhere)
    assert analysis.busy is not None and analysis.busy > 0.25
    assert all(c.summary.reliable for c in analysis.curves.values())


def test_a_retried_clean_run_counts_and_the_figure_stays_reliable():
    """Every first try at the crossing ran beside other processes and was slower; a later try
    ran clean and counts (the fastest)."""
    runs, _ = drive(PARAMS, quiet_run)
    sizes = deciding(analyze(PARAMS, runs), "a")
    slowed = [dict(busy(r), flops_per_second=r["flops_per_second"] / 2)
              if r["system"] == "a" and r["iter"] in sizes and r["key"].endswith("try=0") else r for r in runs]
    assert analyze(PARAMS, slowed).curves["a"].summary.reliable


def test_repetitions_that_disagree_give_a_wide_interval_named_with_its_runs():
    runs, _ = drive(PARAMS, quiet_run)
    # Repetition 2 runs 1.4 times slower everywhere: a machine that changed between repetitions.
    slow = [dict(r, flops_per_second=r["flops_per_second"] / 1.4, granularity_seconds=r["granularity_seconds"] * 1.4)
            if r["rep"] == 2 and r["system"] == "a" else r for r in runs]
    s = analyze(PARAMS, slow).curves["a"].summary
    assert s.half_width > 0.10
    assert s.unreliable[0].startswith("its 95% interval ") and "wider than ±10%" in s.unreliable[0]
    assert f"the efficiencies of its 6 runs at -iter {min(s.deciding)} and {max(s.deciding)} range" in s.unreliable[0]


def test_a_placement_change_gives_a_metg_per_placement():
    """The CPUs moved apart and back: repetitions 1 and 3 ran under probes of 200-210 ns one way,
    1.5 times slower for a 2-core system, 0 and 2 under probes of 52-60 ns."""
    params = dataclasses.replace(PARAMS, reps=4)
    runs, _ = drive(params, quiet_run)
    runs = [dict(r, id=k + 1, cores=2 if r["system"] == "a" else 1) for k, r in enumerate(runs)]
    far = [dict(r, flops_per_second=r["flops_per_second"] / 1.5, granularity_seconds=r["granularity_seconds"] * 1.5)
           if r["rep"] % 2 and r["system"] == "a" else r for r in runs]

    def latency(run):
        return 200.0 + run["id"] % 11 if run["rep"] % 2 else 52.0 + run["id"] % 9

    probes = []  # two probes between runs: the one before's placement, then the one after's
    for before, after in zip([None, *runs], [*runs, None]):
        at = before["id"] if before else 0
        probes += [{"after_run_id": at, "one_way_ns": latency(run), "no_runtime_row_ns": 100.0,
                    "metg_lower_bound_seconds": 2e-7} for run in (before, after) if run]
    campaign = {"name": "c", "params": params.to_dict(), "status": "done", "machine": {"placement_probes": probes}}
    analysis = analyze_runs(campaign, far, peaks())
    s = analysis.curves["a"].summary
    near, far_ = s.placements
    assert (near.label, far_.label) == ("near cores", "far cores")
    assert near.runs + far_.runs == sum(len(points) for points in analysis.curves["a"].reps.values())
    assert far_.seconds > 1.3 * near.seconds and near.low is not None and far_.low is not None
    # One figure whose interval covers both placements' own.
    assert s.low <= near.low and s.high >= far_.high
    assert not s.reliable and s.unreliable[0].startswith("the CPUs' placement changed during the campaign, and its "
                                                          "METG with it: near cores (52-60 ns one way): ")
    # One core exchanges no cache lines: b is not split.
    assert analysis.curves["b"].summary.placements == [] and analysis.curves["b"].summary.reliable
