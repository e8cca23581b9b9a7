"""METG and efficiency on synthetic curves with known answers (no executables needed)."""

import math

import pytest

from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint, efficiency, metg_of_curve, relative_spread
from taskbench.measure.analysis import analyze_runs
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams


def curve(*triples):
    return [CurvePoint(it, g, e) for it, g, e in triples]


def test_efficiency_is_throughput_over_peak():
    assert efficiency(25.0, 50.0) == 0.5
    assert efficiency(None, 50.0) is None
    assert efficiency(10.0, None) is None


def test_crossing_is_interpolated_in_log_granularity():
    # 90% at 10 µs, 10% at 1 µs: 50% is halfway in efficiency, so halfway in log(g): sqrt(10) µs.
    value = metg_of_curve(curve((100, 10e-6, 0.9), (10, 1e-6, 0.1)), 0.5)
    assert value.status == "found"
    assert value.seconds == pytest.approx(math.sqrt(10) * 1e-6, rel=1e-9)


def test_interpolation_weights_by_distance_to_threshold():
    # 60% at 100 µs, 20% at 1 µs: 50% is a quarter of the way: 10^(2 - 0.5) µs.
    value = metg_of_curve(curve((1000, 100e-6, 0.6), (10, 1e-6, 0.2)), 0.5)
    assert value.seconds == pytest.approx(10 ** 1.5 * 1e-6, rel=1e-9)


def test_point_exactly_at_threshold_counts():
    value = metg_of_curve(curve((64, 8e-6, 0.95), (16, 2e-6, 0.5), (4, 1e-6, 0.2)), 0.5)
    assert value.seconds == pytest.approx(2e-6)


def test_no_metg_when_threshold_never_reached():
    value = metg_of_curve(curve((64, 8e-6, 0.4), (16, 2e-6, 0.2)), 0.5)
    assert value.seconds is None and value.status == "none"
    assert "never reaches 50%" in value.note


def test_unbracketed_when_never_below_threshold():
    value = metg_of_curve(curve((64, 8e-6, 0.99), (16, 2e-6, 0.8)), 0.5)
    assert value.status == "unbracketed" and value.seconds == pytest.approx(2e-6)


def test_points_are_walked_in_sweep_order_not_given_order():
    shuffled = curve((10, 1e-6, 0.1), (100, 10e-6, 0.9))
    assert metg_of_curve(shuffled, 0.5).seconds == pytest.approx(math.sqrt(10) * 1e-6)


def test_non_monotone_granularity_uses_sweep_neighbours():
    # Overhead-dominated tail: granularity grows again as -iter shrinks (as openmp_task does).
    # The crossing is between -iter 4096 and 1024 even though 1024 has the larger granularity.
    points = curve((16384, 100e-6, 0.8), (4096, 40e-6, 0.6), (1024, 50e-6, 0.1), (256, 9e-6, 0.05))
    value = metg_of_curve(points, 0.5)
    assert value.status == "found"
    # Crossing lies between 40 and 50 µs, above 40 µs: the smallest efficient point wins.
    assert value.seconds == pytest.approx(40e-6)


def test_non_monotone_efficiency_takes_the_smallest_granularity():
    # A dip below 50% then a recovery: METG is the smallest granularity still >= 50%.
    points = curve((1000, 100e-6, 0.9), (500, 50e-6, 0.45), (250, 25e-6, 0.7), (125, 12e-6, 0.1))
    value = metg_of_curve(points, 0.5)
    expected = math.exp(math.log(25e-6) + (0.2 / 0.6) * (math.log(12e-6) - math.log(25e-6)))
    assert value.seconds == pytest.approx(expected)


def test_failed_points_are_skipped():
    points = curve((100, 10e-6, 0.9), (50, None, None), (10, 1e-6, 0.1))
    assert metg_of_curve(points, 0.5).seconds == pytest.approx(math.sqrt(10) * 1e-6)
    assert metg_of_curve(curve((50, None, None)), 0.5).status == "none"


def test_the_median_method_is_the_median_of_the_repetitions_own_with_its_bootstrap_interval():
    values = [(0.1, 0.2, 0.3)[k] for k in range(3)]
    reps = {k: curve((100, 10e-6, 0.9), (10, 1e-6, e)) for k, e in enumerate(values)}
    own = sorted(metg_of_curve(points, 0.5).seconds for points in reps.values())
    s = estimate(reps, 0.5, "median")
    assert s.seconds == pytest.approx(own[1]) and s.found == 3 and s.status == "found"
    # The median of resampled repetitions lies among their own METGs: so does its interval.
    assert own[0] <= s.low <= s.seconds <= s.high <= own[2]


def test_a_repetition_short_of_the_threshold_leaves_the_others_figure():
    reps = {0: curve((100, 10e-6, 0.9), (10, 1e-6, 0.1)), 1: curve((100, 10e-6, 0.4))}
    s = estimate(reps, 0.5, "median")
    assert s.found == 1 and s.seconds == metg_of_curve(reps[0], 0.5).seconds and s.low is None


def test_summary_without_any_metg():
    s = estimate({0: curve((100, 10e-6, 0.3))}, 0.5)
    assert s.seconds is None and s.text_status.startswith("no METG") and s.text == "no METG"


def test_relative_spread():
    assert relative_spread([9.0, 10.0, 11.0]) == pytest.approx(0.2)
    assert relative_spread([5.0]) is None


def test_peak_is_measured_never_constant():
    table = PeakTable("compute_bound")
    assert table.peak(2) is None  # nothing measured: no efficiency at all
    table.observe({"status": "ok", "cores": 2, "flops_per_second": 40e9})
    table.observe({"status": "ok", "cores": 2, "flops_per_second": 50e9})
    table.observe({"status": "failed", "cores": 2, "flops_per_second": 90e9})
    assert table.peak(2) == 50e9


def test_a_peak_comes_only_from_runs_with_as_many_cores():
    stored = [{"status": "ok", "cores": 2, "flops_per_second": 50e9, "campaign": "peak-1", "system": "native",
               "iter": 4096}]
    table = PeakTable("compute_bound", stored)
    assert table.peak(2) == 50e9
    assert table.source(2) == "stored `taskbench peak` run of campaign peak-1 (native -iter 4096)"
    assert table.peak(1) is None  # never 25e9, half the 2-core peak
    table.observe({"status": "ok", "cores": 1, "flops_per_second": 28e9, "campaign": "c", "system": "serial",
                   "iter": 512})
    assert table.peak(1) == 28e9 and table.peak(2) == 50e9  # a fast core never raises the 2-core peak
    table.observe({"status": "ok", "cores": 2, "flops_per_second": 52e9, "campaign": "c", "system": "omp",
                   "iter": 1024})
    assert table.peak(2) == 52e9
    # The stored peak the campaign beat is still named, with its figure: it was measured low.
    assert table.source(2) == ("campaign's best run (omp -iter 1024), above the stored `taskbench peak` run "
                               "of campaign peak-1 (native -iter 4096) at 50.0 GFLOP/s")


def test_an_all_core_system_reaches_its_peak_where_one_core_runs_faster():
    """A 16-core machine where one core alone runs 1.25 x faster than each of 16 busy ones
    (turbo, a shared power budget): the all-core system, efficient at large tasks, must be
    measured at ~100% there, and serial at ~100% of one core."""
    per_core_alone, per_core_all = 80e9, 64e9
    stored = [{"status": "ok", "cores": 1, "flops_per_second": per_core_alone},
              {"status": "ok", "cores": 16, "flops_per_second": 16 * per_core_all}]
    params = SweepParams(systems=["serial", "native"], reps=1, kernel="compute_bound", width=16)
    runs = []
    for system, cores, overhead in (("serial", 1, 0.1e-6), ("native", 16, 2e-6)):
        rate = per_core_alone if cores == 1 else per_core_all
        for iterations in (1 << 20, 1 << 16, 1 << 12, 1 << 8):
            work = iterations * 64 / rate  # seconds of kernel per task at this core count's rate
            task = work + overhead
            runs.append({"system": system, "iter": iterations, "rep": 0, "status": "ok", "cores": cores,
                         "tasks": 16000, "dependencies": 0, "flops_per_second": cores * rate * work / task,
                         "granularity_seconds": task, "elapsed_seconds": 1.0, "background_load": 0.0})
    analysis = analyze_runs({"name": "c", "params": params.to_dict(), "status": "done"}, runs,
                            PeakTable("compute_bound", stored))
    for system in ("serial", "native"):
        best = max(p.efficiency for p in analysis.curves[system].reps[0])
        assert best == pytest.approx(1.0, abs=0.01), system
    # Scaled from the fast core (16 x 80 GFLOP/s) it would have read 80% at most.
    assert analysis.curves["native"].peak == pytest.approx(16 * per_core_all)


def test_memory_kernels_use_bytes_per_second():
    table = PeakTable("memory_bound")
    table.observe({"status": "ok", "cores": 1, "flops_per_second": 0, "bytes_per_second": 9e9})
    assert table.peak(1) == 9e9
