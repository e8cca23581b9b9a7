"""One METG from every run (measure/metg/fit.py, measure/metg/estimate.py): the fit against answers
worked out by hand and against the model it stands for, its interval from resampling whole
repetitions, and what neither a noisy size nor a missing crossing may do to it."""

import math

import numpy as np
import pytest

from taskbench.measure.metg import fit as metg_fit
from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint, metg_of_curve

OVERHEAD = 250e-9  # seconds a task costs beyond its kernel: METG(50%) = 2 x OVERHEAD
SIZES = [65536, 16384, 4096, 1024, 724, 512, 362, 256, 181, 128, 64, 16, 4, 1]
NS_PER_ITER = 1e-9  # kernel seconds per -iter at the peak


def model_point(iterations: int, noise: float = 0.0) -> CurvePoint:
    """A constant per-task overhead: efficiency = w / (w + o), granularity = w + o."""
    w = iterations * NS_PER_ITER
    e = w / (w + OVERHEAD) * (1 + noise)
    return CurvePoint(iterations, w / e, e)


def noisy_reps(n: int, sigma: float, seed: int = 0) -> dict[int, list[CurvePoint]]:
    rng = np.random.default_rng(seed)
    return {rep: [model_point(it, rng.normal(0, sigma)) for it in SIZES] for rep in range(n)}


def test_a_monotone_curve_is_read_between_its_two_sizes_linearly_in_log_work():
    reps = {0: [model_point(it) for it in SIZES]}
    s = estimate(reps, 0.5)
    # By hand: -iter 256 (w 256 ns, e 0.5059) and 181 (w 181 ns, e 0.4200) bracket 50%.
    e_hi, e_lo = 256 / (256 + 250), 181 / (181 + 250)
    log_w = math.log(181e-9) + (0.5 - e_lo) / (e_hi - e_lo) * (math.log(256e-9) - math.log(181e-9))
    assert s.seconds == pytest.approx(math.exp(log_w) / 0.5, rel=1e-12)
    assert s.status == "found" and set(s.deciding) == {256, 181}
    # Within the interpolation's error of the model's own METG, 2 x OVERHEAD.
    assert s.seconds == pytest.approx(2 * OVERHEAD, rel=0.02)
    assert s.low is None and s.high is None  # one repetition: no interval


def test_work_per_task_is_efficiency_times_granularity_whatever_the_run_s_noise():
    a, b = model_point(512, 0.2), model_point(512, -0.3)
    assert a.efficiency * a.granularity == pytest.approx(b.efficiency * b.granularity, rel=1e-12)


def test_a_noisy_size_is_pooled_not_a_second_crossing():
    """A repetition whose -iter 724 ran slow (45%) above its crossing: read on its own, the
    curve crosses 50% three times; the fit pools 724 with its neighbour and crosses once."""
    points = [model_point(it) for it in SIZES]
    slow = [CurvePoint(p.iter, p.granularity * p.efficiency / 0.45, 0.45) if p.iter == 724 else p for p in points]
    assert metg_of_curve(slow, 0.5).crossings == 3
    s = estimate({0: slow}, 0.5)
    # Pooled with 1024 (80.4%): the fitted value there is (0.45 + 0.8038) / 2 = 0.627, above 50%,
    # so the crossing stays between 256 and 181 and the METG is the clean curve's.
    assert s.seconds == pytest.approx(estimate({0: points}, 0.5).seconds, rel=1e-12)


def test_pooling_at_the_crossing_is_the_weighted_mean_of_the_pooled_sizes():
    """Two sizes out of order right at the crossing: the fit is their mean at both, and the
    crossing is read between the pooled block and its neighbours."""
    w = [100e-9, 200e-9, 400e-9, 800e-9]
    effs = [0.2, 0.6, 0.4, 0.9]  # 200 and 400 out of order: pooled to 0.5 at both
    reps = {0: [CurvePoint(int(x * 1e9), x / e, e) for x, e in zip(w, effs)]}
    s = estimate(reps, 0.5)
    # The fitted value reaches 0.5 exactly at w = 200 ns (the first size of the block): METG = 400 ns.
    assert s.seconds == pytest.approx(200e-9 / 0.5, rel=1e-12)


def test_statuses_at_the_ends():
    high = {0: [model_point(it) for it in SIZES[:4]]}  # every size above 80%
    s = estimate(high, 0.5)
    assert s.status == "unbracketed" and s.text.endswith(" or less")
    assert s.seconds == pytest.approx(1024e-9 / (1024 / (1024 + 250)))  # the smallest size's granularity
    assert any("at most this" in w for w in s.warnings)
    low = {0: [model_point(it) for it in SIZES[-4:]]}
    assert estimate(low, 0.5).status == "none" and estimate(low, 0.5).seconds is None


def test_the_interval_resamples_repetitions_and_is_reproducible():
    reps = noisy_reps(8, 0.03)
    s = estimate(reps, 0.5, seed=7)
    assert s.low < s.seconds < s.high
    again = estimate(reps, 0.5, seed=7)
    assert (again.low, again.high) == (s.low, s.high)
    # The 95% interval covers the model's own METG (within the interpolation's 2%).
    assert s.low * 0.98 <= 2 * OVERHEAD <= s.high * 1.02


def test_the_interval_is_the_percentile_of_refits_of_resampled_repetitions():
    """An independent definition: resample repetition indices with NumPy's generator, refit each
    resample by pooling its points, take the percentiles of log METG at the expanded level for
    5 repetitions (Hesterberg: the 0.095% and 99.905% points)."""
    reps = noisy_reps(5, 0.04, seed=3)
    points = metg_fit.Points.of([(p.iter, rep, p.granularity, p.efficiency) for rep, ps in reps.items() for p in ps])
    low, high = metg_fit.interval(points, 0.5, seed=11, resamples=4000)
    rng = np.random.default_rng(123)
    values = []
    for _ in range(4000):
        chosen = rng.integers(0, 5, 5)
        rows = [(p.iter, k, p.granularity, p.efficiency) for k, rep in enumerate(chosen) for p in reps[rep]]
        fit = metg_fit.fit(metg_fit.Points.of(rows), 0.5)
        values.append(math.log(fit.seconds))
    assert metg_fit.expanded_level(5) == pytest.approx(1 - 2 * 0.000954, abs=2e-6)
    tail = (1 - metg_fit.expanded_level(5)) / 2 * 100
    mine = np.exp(np.percentile(values, [tail, 100 - tail]))
    # Two Monte-Carlo estimates of the same percentiles: equal within their own noise.
    assert low == pytest.approx(mine[0], rel=0.01) and high == pytest.approx(mine[1], rel=0.01)


def test_more_repetitions_narrow_the_interval():
    for seed in range(3):
        few = estimate(noisy_reps(9, 0.05, seed=seed), 0.5, seed=1).half_width
        many = estimate(noisy_reps(144, 0.05, seed=seed), 0.5, seed=1).half_width
        assert many < few / 2  # a quarter of it, as 1 / sqrt(n), give or take the resampling


def test_identical_repetitions_have_a_zero_width_interval():
    reps = {rep: [model_point(it) for it in SIZES] for rep in range(3)}
    s = estimate(reps, 0.5)
    assert s.low == pytest.approx(s.seconds) and s.high == pytest.approx(s.seconds) and s.half_width < 1e-9


def test_a_resample_without_a_crossing_makes_the_interval_unbounded_on_its_side():
    """A repetition of only the two sizes around the crossing, read above 50% at both: a
    resample of it alone (a quarter of them, with two repetitions) has no crossing, a METG below
    every size it holds by no size's measure: the interval is unbounded below, never the edge of
    the sweep taken for a bound (-iter 181's work over 50%, before). One that never reaches 50%
    makes it unbounded above (the edge was the largest size: 38 us for a 250 ns METG)."""
    reps = {0: [model_point(it) for it in SIZES], 1: [model_point(256), model_point(181, 0.25)]}
    s = estimate(reps, 0.5)
    assert s.low == 0 and s.high >= s.seconds and "unbounded below)" in s.text and s.half_width > 0.5
    never = {0: [model_point(it) for it in SIZES], 1: [model_point(it, -0.9) for it in SIZES[:3]]}
    s = estimate(never, 0.5)
    assert s.high == math.inf and s.text.endswith("unbounded above)")


def test_one_repetition_has_no_interval_and_says_so():
    s = estimate({0: [model_point(it) for it in SIZES]}, 0.5)
    assert s.text == f"{s.seconds * 1e9:.3g} ns" and s.half_width is None
