"""Whether a candidate build is slower than its baseline (`taskbench check`, docs/regression-gate.md):
a verdict per metric from the repetitions of both sides. Pure functions.

- Paired repetitions (the fixed grains of an interleaved check: repetition k of each side ran
  one after the other, in the same minute of the machine): the Wilcoxon signed-rank test of the
  pairs' log ratios, exact (all 2^n sign patterns counted, ties at their mid-rank), two-sided.
  The effect is the Hodges-Lehmann estimate, the median of the log ratios' Walsh averages, with
  its exact distribution-free interval. A machine whose speed halves for a minute slows both runs
  of a pair and leaves their ratio alone, which is why the gate interleaves.
- Unpaired repetitions (a stored baseline; METGs, one per curve of a sweep): Mann-Whitney U,
  exact in the same way; the effect is the Hodges-Lehmann shift, the median of every difference
  of logs (candidate minus baseline), with its exact interval. Unlike a ratio of medians, it does
  not jump between the modes of a bimodal machine.
- Many cells at once: Holm's step-down correction of their p-values (the family-wise error stays
  at ALPHA however many systems and metrics are checked).
- The verdict: *regressed* (or *improved*) needs all three of a corrected p below ALPHA, an
  interval that excludes 1, and a ratio beyond the threshold; *unchanged* needs the whole
  interval inside the threshold's band; anything else, too few repetitions, or noise the harness
  saw is *inconclusive*, never a guess either way.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

REGRESSED, IMPROVED, UNCHANGED, INCONCLUSIVE = "regressed", "improved", "unchanged", "inconclusive"
ALPHA = 0.05
CONFIDENCE = 0.95  # of the ratio's interval (at least: the exact intervals are conservative)
# Fewer: inconclusive. Unpaired, 6 and 6 give an exact smallest p of 0.0022, which Holm's
# correction keeps below ALPHA for up to 22 cells (5 and 5: 0.0079, 6 cells); paired, 10 pairs
# give 0.0020 (6 pairs: 0.031, enough for one cell alone).
MIN_REPS = 6
MIN_PAIRS = 10


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Exact two-sided p of the rank-sum of `a` among a + b: the share of all C(n, len(a)) splits
    whose rank-sum is at least as far from its mean as the observed one."""
    pooled, n, k = [*a, *b], len(a) + len(b), len(a)
    if k == 0 or k == n:
        return 1.0
    ranks2 = _doubled_midranks(pooled)
    observed = sum(ranks2[:k])
    # ways[c][s]: subsets of c of the items so far whose doubled ranks sum to s.
    ways = [dict() for _ in range(k + 1)]
    ways[0][0] = 1
    for r in ranks2:
        for c in range(k, 0, -1):
            for s, count in ways[c - 1].items():
                ways[c][s + r] = ways[c].get(s + r, 0) + count
    mean = k * (n + 1)  # doubled
    far = abs(observed - mean)
    total = math.comb(n, k)
    extreme = sum(count for s, count in ways[k].items() if abs(s - mean) >= far - 1e-9)
    return min(1.0, extreme / total)


def _doubled_midranks(values: list[float]) -> list[int]:
    """Twice each value's rank among `values` (1-based, ties at their mid-rank), in the given order."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = i + j + 2
        i = j + 1
    return ranks


def signed_rank_p(differences: list[float]) -> float:
    """Exact two-sided p of Wilcoxon's signed-rank statistic: the share of the 2^n sign patterns
    whose positive rank-sum is at least as far from its mean as the observed one (zeros left out)."""
    nonzero = [d for d in differences if d != 0]
    if not nonzero:
        return 1.0
    ranks = _doubled_midranks([abs(d) for d in nonzero])
    observed = sum(r for r, d in zip(ranks, nonzero) if d > 0)
    ways = {0: 1}  # positive rank-sum -> sign patterns
    for r in ranks:
        grown = dict(ways)
        for total, count in ways.items():
            grown[total + r] = grown.get(total + r, 0) + count
        ways = grown
    mean = sum(ranks) / 2
    far = abs(observed - mean)
    return min(1.0, sum(c for total, c in ways.items() if abs(total - mean) >= far - 1e-9) / 2 ** len(nonzero))


def _rank_sum_counts(n: int, k: int) -> list[int]:
    """counts[w]: the splits of ranks 1..n into k and n - k whose k ranks sum to
    w + k(k+1)/2 (Mann-Whitney's U = w), without ties."""
    ways = [[0] * (k * (n - k) + 1) for _ in range(k + 1)]
    ways[0][0] = 1
    for r in range(1, n + 1):
        for c in range(min(k, r), 0, -1):
            shift = r - c  # the rank's share of U once c ranks are taken
            row, previous = ways[c], ways[c - 1]
            for u in range(len(row) - 1, shift - 1, -1):
                row[u] += previous[u - shift]
    return ways[k]


def _signed_rank_counts(n: int) -> list[int]:
    """counts[t]: the sign patterns of ranks 1..n whose positive ranks sum to t, without ties."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        for t in range(len(counts) - 1, r - 1, -1):
            counts[t] += counts[t - r]
    return counts


def _interval_depth(counts: list[int]) -> int:
    """The largest k with P(statistic <= k - 1) <= (1 - CONFIDENCE) / 2 under the null (counts:
    its distribution): the interval runs from the k-th smallest estimate to the k-th largest
    (1-based). 1 where even the most extreme value is likelier than that: the whole range."""
    total, tail, cumulative, depth = sum(counts), (1 - CONFIDENCE) / 2, 0, 1
    for statistic, count in enumerate(counts):
        cumulative += count
        if cumulative / total > tail:
            break
        depth = statistic + 1
    return depth


def shift_unpaired(baseline: list[float], candidate: list[float]) -> tuple[float, float, float]:
    """(ratio, low, high): the Hodges-Lehmann estimate of the candidate's shift in log, the
    median of every difference log(c) - log(b), with its exact distribution-free interval (the
    Mann-Whitney null distribution's quantiles), as ratios."""
    d = sorted(math.log(c) - math.log(b) for c in candidate for b in baseline)
    k = _interval_depth(_rank_sum_counts(len(baseline) + len(candidate), len(candidate)))
    k = min(k, (len(d) + 1) // 2)
    return math.exp(statistics.median(d)), math.exp(d[k - 1]), math.exp(d[len(d) - k])


def shift_paired(ratios: list[float]) -> tuple[float, float, float]:
    """(ratio, low, high): the Hodges-Lehmann estimate of the pairs' log ratio, the median of
    its Walsh averages (every mean of two pairs', each pair with itself too), with its exact
    interval (the signed-rank null distribution's quantiles), as ratios."""
    logs = [math.log(r) for r in ratios]
    walsh = sorted((logs[i] + logs[j]) / 2 for i in range(len(logs)) for j in range(i, len(logs)))
    k = min(_interval_depth(_signed_rank_counts(len(logs))), (len(walsh) + 1) // 2)
    return math.exp(statistics.median(walsh)), math.exp(walsh[k - 1]), math.exp(walsh[len(walsh) - k])


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
        if len(ratios) < MIN_PAIRS:
            return Comparison(base, cand, None, ratio, None, None, paired=True)
        return Comparison(base, cand, signed_rank_p([math.log(r) for r in ratios]), ratio, low, high, paired=True)
    ratio, low, high = shift_unpaired(list(base), list(cand))
    if len(base) < MIN_REPS or len(cand) < MIN_REPS:
        return Comparison(base, cand, None, ratio, None, None)
    return Comparison(base, cand, mann_whitney_p(list(cand), list(base)), ratio, low, high)


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
