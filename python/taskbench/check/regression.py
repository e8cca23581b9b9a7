"""Whether a candidate build is slower than its baseline (`taskbench check`, docs/regression-gate.md):
a verdict per metric from the repetitions of both sides. Pure functions; the tests and their
null distributions are SciPy's (scipy.stats), the estimates NumPy's.

- Paired repetitions (the fixed grains of an interleaved check: repetition k of each side ran
  one after the other, in the same minute of the machine): the Wilcoxon signed-rank test of the
  pairs' log ratios (`scipy.stats.wilcoxon`), two-sided, zeros dropped (`zero_method="wilcox"`).
  The effect is the Hodges-Lehmann estimate, the median of the log ratios' Walsh averages, with
  its exact distribution-free interval. A machine whose speed halves for a minute slows both runs
  of a pair and leaves their ratio alone, which is why the gate interleaves.
- Unpaired repetitions (a stored baseline; METGs, one per curve of a sweep): Mann-Whitney U
  (`scipy.stats.mannwhitneyu`), two-sided; the effect is the Hodges-Lehmann shift, the median of
  every difference of logs (candidate minus baseline), with its exact interval. Unlike a ratio of
  medians, it does not jump between the modes of a bimodal machine.
- Exact p-values: without ties, SciPy's exact null distributions (`method="exact"`). SciPy's exact
  methods ignore ties, so with ties the p is SciPy's `permutation_test` enumerating every
  relabelling (all 2^n sign patterns, all C(n, k) splits) of the mid-ranks, as long as there are
  at most EXACT_LIMIT of them; beyond that (ties among 17 or more pairs, say; or a side of one
  value, which permutation_test refuses), SciPy's normal approximation with its tie correction
  (`method="asymptotic"`).
- The intervals invert the exact tests: the shifts the two-sided test at 1 - CONFIDENCE does not
  reject. The statistic at a shift counts the differences (or Walsh averages) above it, so the
  interval runs from the k-th smallest of them to the k-th largest, k one more than the
  largest statistic whose SciPy exact p is at most 1 - CONFIDENCE.
- Many cells at once: Holm's step-down correction of their p-values (the family-wise error stays
  at ALPHA however many systems and metrics are checked). SciPy has none (its
  `false_discovery_control` is Benjamini-Hochberg's, which controls another error), so it is here.
- The verdict: *regressed* (or *improved*) needs all three of a corrected p below ALPHA, an
  interval that excludes 1, and a ratio beyond the threshold; *unchanged* needs the whole
  interval inside the threshold's band; anything else, too few repetitions, or noise the harness
  saw is *inconclusive*, never a guess either way.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

REGRESSED, IMPROVED, UNCHANGED, INCONCLUSIVE = "regressed", "improved", "unchanged", "inconclusive"
ALPHA = 0.05
CONFIDENCE = 0.95  # of the ratio's interval (at least: the exact intervals are conservative)
# Fewer: inconclusive. Unpaired, 6 and 6 give an exact smallest p of 0.0022, which Holm's
# correction keeps below ALPHA for up to 22 cells (5 and 5: 0.0079, 6 cells); paired, 10 pairs
# give 0.0020 (6 pairs: 0.031, enough for one cell alone).
MIN_REPS = 6
MIN_PAIRS = 10
# The most relabellings an exact p under ties enumerates (2^16: 16 pairs, or 9 and 9 unpaired):
# about 0.4 s at the limit on a 2-core VM.
EXACT_LIMIT = 2 ** 16


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Two-sided p of the Mann-Whitney U of `a` against `b`: the share of all C(n, len(a)) splits
    of the pooled values whose U is at least as far from its mean as the observed one (ties at
    their mid-rank), exact up to EXACT_LIMIT splits (with ties, and two values a side)."""
    from scipy import stats  # SciPy loads in 0.4 s: only where a test is run
    if not a or not b:
        return 1.0
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    pooled = np.concatenate([x, y])
    distinct = np.unique(pooled).size
    if distinct == 1:
        return 1.0  # every split has the same U
    if distinct == pooled.size:
        return float(stats.mannwhitneyu(x, y, method="exact").pvalue)
    if min(x.size, y.size) >= 2 and math.comb(pooled.size, x.size) <= EXACT_LIMIT:
        # (permutation_test wants two values a side.) Its two-sided p doubles the smaller tail,
        # which is not the share above where ties make U's distribution lopsided: so the
        # statistic is U's distance from its mean, and the p its upper tail.
        mean = x.size * y.size / 2

        def distance(x, y, axis):
            return np.abs(stats.mannwhitneyu(x, y, axis=axis, method="asymptotic").statistic - mean)
        return float(stats.permutation_test((x, y), distance, permutation_type="independent",
                                            n_resamples=np.inf, alternative="greater").pvalue)
    return float(stats.mannwhitneyu(x, y, method="asymptotic").pvalue)


def signed_rank_p(differences: list[float]) -> float:
    """Two-sided p of Wilcoxon's signed-rank statistic: the share of the 2^n sign patterns whose
    positive rank-sum is at least as far from its mean as the observed one (zeros left out, ties
    at their mid-rank), exact up to EXACT_LIMIT patterns."""
    from scipy import stats  # SciPy loads in 0.4 s: only where a test is run
    d = np.asarray(differences, dtype=float)
    d = d[d != 0]  # what zero_method="wilcox" does; here so that the count below is right
    if d.size == 0:
        return 1.0
    if np.unique(np.abs(d)).size == d.size:
        # SciPy's two-sided p, twice the smaller tail; but SciPy sums an upper tail as 1 minus
        # the rest, which rounds p-values below 1e-16 off (to 0 at 80 pairs of one sign): each
        # tail here is the lower tail of the differences or of their mirror image.
        lower, upper = (stats.wilcoxon(side, zero_method="wilcox", method="exact", alternative="less").pvalue
                        for side in (d, -d))
        return float(min(1.0, 2 * min(lower, upper)))
    if 2 ** d.size <= EXACT_LIMIT:
        # The smaller of the two rank-sums: small exactly where the positive one is far from its
        # mean. (wilcoxon(method=PermutationMethod()) gives the same p, one pattern at a time.)
        def smaller(d, axis):
            return stats.wilcoxon(d, zero_method="wilcox", axis=axis, method="asymptotic").statistic
        return float(stats.permutation_test((d,), smaller, permutation_type="samples",
                                            n_resamples=np.inf, alternative="less").pvalue)
    return float(stats.wilcoxon(d, zero_method="wilcox", correction=True, method="asymptotic").pvalue)


def _depth(p_of: Callable[[int], float], top: int, first: int | None = None) -> int:
    """The interval's depth: 1 + the largest statistic s in 0..top (its null mean, rounded down)
    whose two-sided p, p_of(s), is at most 1 - CONFIDENCE; the interval runs from the k-th
    smallest estimate to the k-th largest (1-based). 1 where even s = 0 is likelier than that:
    the whole range. p_of rises with s up to the mean, so a bisection finds it, asking for s =
    `first` before any other (just above the answer, for SciPy's exact Mann-Whitney: it keeps
    the distribution it computed up to the largest statistic asked for, and computes it again,
    from 0, for a larger one)."""
    accepted, rejected = -1, top + 1  # p_of(accepted) <= 1 - CONFIDENCE < p_of(rejected)
    s = top // 2 if first is None else min(max(first, 0), top)
    while rejected - accepted > 1:
        if p_of(s) <= 1 - CONFIDENCE:
            accepted = s
        else:
            rejected = s
        s = (accepted + rejected) // 2
    return max(accepted + 1, 1)


@functools.lru_cache(maxsize=None)
def _rank_sum_depth(m: int, n: int) -> int:
    """The depth of the Mann-Whitney interval of m against n, from SciPy's exact test: the p of a
    statistic u is the p of any tie-free samples with that U, here m half-integers against the
    integers 0..n-1, each in turn above as many of them as the u pairs left allow."""
    from scipy import stats  # SciPy loads in 0.4 s: only where a test is run
    below = np.arange(n, dtype=float)

    def p_of(u: int) -> float:
        above = np.clip(u - n * np.arange(m), 0, n)  # how many of `below` each one exceeds
        return float(stats.mannwhitneyu(above - 0.5, below, method="exact").pvalue)
    mean, sd = m * n / 2, math.sqrt(m * n * (m + n + 1) / 12)
    # First a little above where the normal approximation puts the answer (mean - 1.96 sd).
    return _depth(p_of, m * n // 2, first=math.ceil(mean - 1.8 * sd) + 2)


@functools.lru_cache(maxsize=None)
def _signed_rank_depth(n: int) -> int:
    """The depth of the signed-rank interval of n pairs, from SciPy's exact test: the p of a
    statistic t is the p of the differences 1..n with positive signs on ranks summing to t
    (taken greedily from the largest)."""
    from scipy import stats  # SciPy loads in 0.4 s: only where a test is run
    def p_of(t: int) -> float:
        signed = []
        for r in range(n, 0, -1):
            signed.append(r if r <= t else -r)
            t -= max(signed[-1], 0)
        return float(stats.wilcoxon(np.asarray(signed, dtype=float), method="exact").pvalue)
    return _depth(p_of, n * (n + 1) // 4)


def shift_unpaired(baseline: list[float], candidate: list[float]) -> tuple[float, float, float]:
    """(ratio, low, high): the Hodges-Lehmann estimate of the candidate's shift in log, the
    median of every difference log(c) - log(b), with its exact distribution-free interval (the
    Mann-Whitney test inverted), as ratios."""
    differences = np.subtract.outer(np.log(candidate), np.log(baseline))
    return _median_and_interval(differences.ravel(), _rank_sum_depth(len(candidate), len(baseline)))


def shift_paired(ratios: list[float]) -> tuple[float, float, float]:
    """(ratio, low, high): the Hodges-Lehmann estimate of the pairs' log ratio, the median of
    its Walsh averages (every mean of two pairs', each pair with itself too), with its exact
    interval (the signed-rank test inverted), as ratios."""
    logs = np.log(ratios)
    i, j = np.triu_indices(logs.size)
    return _median_and_interval((logs[i] + logs[j]) / 2, _signed_rank_depth(logs.size))


def _median_and_interval(estimates: np.ndarray, depth: int) -> tuple[float, float, float]:
    """(median, depth-th smallest, depth-th largest) of the log estimates, as ratios."""
    estimates = np.sort(estimates)
    k = min(depth, (estimates.size + 1) // 2)
    return math.exp(np.median(estimates)), math.exp(estimates[k - 1]), math.exp(estimates[-k])


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the given order (None stays None, uncounted)."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (len(present) - rank) * p))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Comparison:
    """One metric of one system: both sides' repetitions and what they say."""
    baseline: tuple[float, ...]
    candidate: tuple[float, ...]
    p: float | None  # the test's, before the correction; None: too few repetitions
    ratio: float | None  # median(candidate) / median(baseline)
    low: float | None
    high: float | None
    paired: bool = False


def compare(baseline: list[float], candidate: list[float], paired: bool = False) -> Comparison:
    """paired: baseline[k] and candidate[k] ran one after the other (same length)."""
    base, cand = tuple(baseline), tuple(candidate)
    if not base or not cand or min(base + cand) <= 0:
        return Comparison(base, cand, None, None, None, None)
    if paired:
        if len(base) != len(cand):
            raise ValueError(f"paired repetitions of unequal counts ({len(base)} and {len(cand)})")
        ratios = [c / b for b, c in zip(base, cand)]
        ratio, low, high = shift_paired(ratios)
        p = signed_rank_p([math.log(r) for r in ratios]) if len(ratios) >= MIN_PAIRS else None
    else:
        # The p first: SciPy's exact Mann-Whitney then holds the distribution the interval asks for.
        p = mann_whitney_p(list(cand), list(base)) if min(len(base), len(cand)) >= MIN_REPS else None
        ratio, low, high = shift_unpaired(list(base), list(cand))
    if p is None:  # too few repetitions: an estimate, but no interval to judge by
        low = high = None
    return Comparison(base, cand, p, ratio, low, high, paired)


def verdict(c: Comparison, p_adjusted: float | None, threshold: float, noise: str = "") -> tuple[str, str]:
    """(verdict, why) for a metric where smaller is better; `noise`: what the harness saw that
    makes these repetitions no evidence (a busy machine, an unreliable METG), or ""."""
    if noise:
        return INCONCLUSIVE, noise
    if c.p is None or p_adjusted is None:
        need = f"at least {MIN_PAIRS} pairs" if c.paired else f"at least {MIN_REPS} on each side"
        return INCONCLUSIVE, f"too few repetitions ({len(c.baseline)} and {len(c.candidate)}; {need})"
    band = 1 + threshold
    if p_adjusted < ALPHA and c.low > 1 and c.ratio > band:
        return REGRESSED, f"{c.ratio:.3f}x, p {p_adjusted:.2g}"
    if p_adjusted < ALPHA and c.high < 1 and c.ratio < 1 / band:
        return IMPROVED, f"{c.ratio:.3f}x, p {p_adjusted:.2g}"
    if c.low >= 1 / band and c.high <= band:
        return UNCHANGED, f"the interval lies within {threshold:.0%} of 1"
    return INCONCLUSIVE, (f"the interval {c.low:.3f}-{c.high:.3f} crosses the {threshold:.0%} threshold"
                          f"{'' if p_adjusted < ALPHA else f' and p {p_adjusted:.2g} is not significant'}: "
                          "more repetitions would tell")
