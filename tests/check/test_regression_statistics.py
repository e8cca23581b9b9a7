"""check/regression.py: the exact tests against a brute-force enumeration written here, Holm's
correction, and the verdicts on synthetic repetitions (all equal, one outlier, bimodal, too few,
a real shift, a machine that slows down for a while)."""
from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from taskbench.check import regression as R


def brute_mann_whitney(a, b):
    """Two-sided p by listing every split of the pooled values (mid-ranks for ties)."""
    pooled = a + b
    order = sorted(pooled)
    rank = {v: statistics.mean(i + 1 for i, w in enumerate(order) if w == v) for v in pooled}
    ranks = [rank[v] for v in pooled]
    mean = len(a) * (len(pooled) + 1) / 2
    observed = abs(sum(ranks[:len(a)]) - mean)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    return sum(abs(sum(ranks[i] for i in s) - mean) >= observed - 1e-9 for s in splits) / len(splits)


def brute_signed_rank(d):
    d = [x for x in d if x != 0]
    order = sorted(abs(x) for x in d)
    rank = {v: statistics.mean(i + 1 for i, w in enumerate(order) if w == v) for v in map(abs, d)}
    ranks = [rank[abs(x)] for x in d]
    mean = sum(ranks) / 2
    observed = abs(sum(r for r, x in zip(ranks, d) if x > 0) - mean)
    signs = list(itertools.product((0, 1), repeat=len(d)))
    return sum(abs(sum(r for r, s in zip(ranks, sign) if s) - mean) >= observed - 1e-9 for sign in signs) / len(signs)


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_tests_match_a_brute_force_enumeration(seed):
    rng = random.Random(seed)
    a = [round(rng.gauss(1.0, 0.1), 1) for _ in range(6)]  # rounded: ties on purpose
    b = [round(rng.gauss(1.1, 0.1), 1) for _ in range(7)]
    assert R.mann_whitney_p(a, b) == pytest.approx(brute_mann_whitney(a, b))
    d = [round(rng.gauss(0.05, 0.1), 2) for _ in range(9)] + [0.0]
    assert R.signed_rank_p(d) == pytest.approx(brute_signed_rank(d))


def test_the_smallest_p_values_the_repetition_minimums_rely_on():
    assert R.mann_whitney_p([1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]) == pytest.approx(2 / math.comb(12, 6))
    assert R.signed_rank_p([1.0] * R.MIN_PAIRS) == pytest.approx(2 / 2 ** R.MIN_PAIRS)
    assert R.signed_rank_p([0.0] * 5) == 1.0 and R.mann_whitney_p([1.0] * 6, [1.0] * 6) == 1.0


def test_holm_steps_down_and_keeps_the_order():
    assert R.holm([0.01, None, 0.04, 0.03]) == pytest.approx([0.03, None, 0.06, 0.06])
    assert R.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert R.holm([]) == []


def verdict_of(base, cand, paired=False, threshold=0.05, noise=""):
    c = R.compare(base, cand, paired)
    return R.verdict(c, c.p, threshold, noise)


def test_all_equal_is_unchanged():
    assert verdict_of([1e-6] * 12, [1e-6] * 12)[0] == R.UNCHANGED
    assert verdict_of([1e-6] * 12, [1e-6] * 12, paired=True)[0] == R.UNCHANGED


def test_one_outlier_does_not_make_a_regression():
    rng = random.Random(3)
    base = [1.0 + rng.uniform(-0.01, 0.01) for _ in range(12)]
    cand = [1.0 + rng.uniform(-0.01, 0.01) for _ in range(11)] + [5.0]
    assert verdict_of(base, cand)[0] == R.UNCHANGED
    assert verdict_of(base, cand, paired=True)[0] == R.UNCHANGED


def test_a_bimodal_machine_is_inconclusive_not_a_verdict():
    """Runs now fast, now 1.5x slow, on both sides alike (unpaired): the medians agree, but the
    interval spans both modes, so neither unchanged nor regressed can be claimed."""
    rng = random.Random(4)
    base = [rng.choice((1.0, 1.5)) + rng.uniform(-0.01, 0.01) for _ in range(12)]
    cand = [rng.choice((1.0, 1.5)) + rng.uniform(-0.01, 0.01) for _ in range(12)]
    verdict, why = verdict_of(base, cand)
    assert verdict == R.INCONCLUSIVE and "more repetitions would tell" in why


def test_too_few_repetitions_are_inconclusive_however_large_the_change():
    verdict, why = verdict_of([1.0] * 5, [2.0] * 5)
    assert verdict == R.INCONCLUSIVE and why == "too few repetitions (5 and 5; at least 6 on each side)"
    verdict, why = verdict_of([1.0] * 9, [2.0] * 9, paired=True)
    assert verdict == R.INCONCLUSIVE and why == "too few repetitions (9 and 9; at least 10 pairs)"


def test_a_real_shift_is_regressed_and_the_reverse_improved_with_the_ratio():
    rng = random.Random(5)
    base = [1.0 + rng.uniform(-0.02, 0.02) for _ in range(12)]
    cand = [1.2 + rng.uniform(-0.02, 0.02) for _ in range(12)]
    c = R.compare(base, cand)
    # Hodges-Lehmann: the median of every difference of logs, candidate minus baseline.
    shifts = sorted(math.log(y) - math.log(x) for y in cand for x in base)
    assert c.ratio == pytest.approx(math.exp(statistics.median(shifts)))
    # The exact interval, from the 38th smallest to the 38th largest of the 144: the tables'
    # two-sided 5% critical U for 12 and 12 is 37 (P(U <= 37) <= 0.025).
    assert (c.low, c.high) == pytest.approx((math.exp(shifts[37]), math.exp(shifts[144 - 38])))
    assert c.low < c.ratio < c.high and c.low > 1.1
    assert R.verdict(c, c.p, 0.05)[0] == R.REGRESSED
    assert verdict_of(cand, base)[0] == R.IMPROVED
    # Below the threshold: real, but too small to count.
    assert verdict_of(base, [x * 1.02 for x in base], paired=True)[0] == R.UNCHANGED


def test_pairs_see_through_a_machine_whose_speed_wanders():
    """The machine's speed wandered over 2x while the pairs ran: unpaired, the two sides overlap
    and tell nothing; paired, every ratio is 1.10 and the regression is plain."""
    rng = random.Random(6)
    speed = [1 + k / 11 for k in range(12)]
    rng.shuffle(speed)
    base = [s * (1 + rng.uniform(-0.005, 0.005)) for s in speed]
    cand = [s * 1.10 * (1 + rng.uniform(-0.005, 0.005)) for s in speed]
    assert verdict_of(base, cand)[0] == R.INCONCLUSIVE
    c = R.compare(base, cand, paired=True)
    assert c.ratio == pytest.approx(1.10, rel=0.01)
    assert R.verdict(c, c.p, 0.05)[0] == R.REGRESSED


def test_noise_the_harness_saw_makes_any_answer_inconclusive():
    assert verdict_of([1.0] * 12, [2.0] * 12, noise="the machine was busy") == (R.INCONCLUSIVE,
                                                                                "the machine was busy")


def test_a_correction_that_lifts_p_above_alpha_blocks_the_verdict():
    base, cand = [1.0, 1.01, 1.02, 1.03, 1.04, 1.05], [1.2, 1.21, 1.22, 1.23, 1.24, 1.25]
    c = R.compare(base, cand)
    assert c.p == pytest.approx(2 / 924)
    assert R.verdict(c, c.p, 0.05)[0] == R.REGRESSED
    verdict, why = R.verdict(c, R.holm([c.p] + [0.5] * 29)[0], 0.05)  # 30 cells at once
    assert verdict == R.INCONCLUSIVE and "not significant" in why


def test_the_paired_interval_is_the_signed_rank_ones():
    """10 pairs: the tables' two-sided 5% critical T is 8, so the interval runs from the 9th
    smallest to the 9th largest of the 55 Walsh averages of the log ratios."""
    rng = random.Random(7)
    base = [1 + rng.random() for _ in range(10)]
    cand = [b * (1.1 + rng.uniform(-0.05, 0.05)) for b in base]
    logs = [math.log(c / b) for b, c in zip(base, cand)]
    walsh = sorted((logs[i] + logs[j]) / 2 for i in range(10) for j in range(i, 10))
    c = R.compare(base, cand, paired=True)
    assert c.ratio == pytest.approx(math.exp(statistics.median(walsh)))
    assert (c.low, c.high) == pytest.approx((math.exp(walsh[8]), math.exp(walsh[55 - 9])))
