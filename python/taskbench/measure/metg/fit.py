"""One METG from every run of a system, with its 95% interval (docs/harness.md, "How METG is
measured"). Pure functions over NumPy arrays; the statistics are SciPy's.

A run's efficiency times its granularity is the kernel's own time per task at the peak,
w = work per task / (peak / cores): the run's elapsed time cancels, so w is exact for every run
of a size, however noisy the run. The efficiency curve is then efficiency against a noise-free
abscissa, and efficiency can only grow with w (larger tasks carry the same per-task overhead):
one monotone (isotonic) fit over every size and repetition at once, read where it crosses the
threshold x between two sizes, linearly in log w. There, efficiency = x and granularity = w / x:
METG(x) = w* / x. A noisy size near the crossing is averaged with its neighbours instead of
making a second crossing, and every repetition's runs count, not one crossing per repetition.

The interval resamples whole repetitions (scipy.stats.bootstrap, percentile, on log METG) and
refits each resample: runs of one repetition share their minutes of the machine, so they are
not independent draws. A plain percentile interval is too narrow from few repetitions (on
synthetic curves, 95% intervals from 3, 5 and 9 repetitions covered the true METG 72%, 83% and
90% of the time: bench/metg_interval_coverage.py), so its level is widened as the expanded
percentile interval does (Hesterberg, "What teachers should know about the bootstrap", 2015): the
percentiles at Phi(-sqrt(n/(n-1)) t(n-1, 97.5%)) and its complement, which brought the same to
72% (3: the interval cannot leave the range of the repetitions' own fits), 92% and 97%
(docs/harness.md). It covers the noise of the runs, not the interpolation between two sizes (the
sweep refines those to a step of 1.41 in -iter).
"""

from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 2000
UNBOUNDED = 1e6  # a resample's log METG beyond every size it holds (Table.log_metg)
BEYOND_ANY_SIZE = 50.0  # a log METG this far from 0 (e^50 s) comes from such a resample


@dataclass(frozen=True)
class Fit:
    seconds: float | None
    status: str  # "found" | "unbracketed" (still efficient at the smallest size: an upper bound) | "none"
    below: int | None = None  # the -iter on either side of the crossing: the sizes it was read from
    above: int | None = None
    best: float | None = None  # the fit's highest efficiency


@dataclass(frozen=True)
class Points:
    """A system's counted runs (one per size and repetition), as arrays of equal length."""
    iters: np.ndarray
    reps: np.ndarray
    work: np.ndarray  # w, seconds of kernel time per task at the peak
    efficiency: np.ndarray

    @classmethod
    def of(cls, rows: list[tuple[int, int, float, float]]) -> "Points":
        """From (iter, rep, granularity, efficiency) of successful runs."""
        data = np.array([(it, rep, g * e, e) for it, rep, g, e in rows], dtype=float).reshape(-1, 4)
        return cls(data[:, 0].astype(int), data[:, 1].astype(int), data[:, 2], data[:, 3])

    @classmethod
    def of_curves(cls, reps: dict) -> "Points":
        """From {repetition: its CurvePoints} (measure/metg/methods.py), the failed ones left out."""
        return cls.of([(p.iter, rep, p.granularity, p.efficiency) for rep, points in reps.items() for p in points
                       if p.ok])

    def __len__(self) -> int:
        return len(self.iters)


class _Table:
    """The points as a repetition x size matrix of summed efficiencies and counts: a resample of
    repetitions is then a product with their multiplicities."""

    def __init__(self, points: Points):
        self.sizes, size_index = np.unique(points.iters, return_inverse=True)
        self.rep_ids, rep_index = np.unique(points.reps, return_inverse=True)
        shape = (len(self.rep_ids), len(self.sizes))
        self.sums, self.counts = np.zeros(shape), np.zeros(shape)
        np.add.at(self.sums, (rep_index, size_index), points.efficiency)
        np.add.at(self.counts, (rep_index, size_index), 1.0)
        work = np.zeros(len(self.sizes))
        np.add.at(work, size_index, points.work)
        self.log_work = np.log(work / np.bincount(size_index))
        order = np.argsort(self.log_work, kind="stable")
        self.sizes, self.log_work = self.sizes[order], self.log_work[order]
        self.sums, self.counts = self.sums[:, order], self.counts[:, order]

    def fit(self, sums: np.ndarray, counts: np.ndarray, threshold: float) -> Fit:
        from scipy.optimize import isotonic_regression  # SciPy loads in 0.4 s: only where a METG is read
        present = counts > 0
        if not present.any():
            return Fit(None, "none")
        x, sizes = self.log_work[present], self.sizes[present]
        fitted = isotonic_regression(sums[present] / counts[present], weights=counts[present], increasing=True).x
        best = float(fitted[-1])
        if best < threshold:
            return Fit(None, "none", best=best)
        if fitted[0] >= threshold:
            return Fit(float(np.exp(x[0]) / fitted[0]), "unbracketed", None, int(sizes[0]), best)
        j = int(np.argmax(fitted >= threshold))
        share = (threshold - fitted[j - 1]) / (fitted[j] - fitted[j - 1])
        log_w = x[j - 1] + share * (x[j] - x[j - 1])
        return Fit(float(np.exp(log_w) / threshold), "found", int(sizes[j - 1]), int(sizes[j]), best)

    def log_metg(self, multiplicity: np.ndarray, threshold: float) -> float:
        """log METG of a resample; one without a crossing has a METG beyond the sizes it holds,
        where no size says how far: +UNBOUNDED (it never reached the threshold) or -UNBOUNDED
        (still efficient at its smallest size), so that the interval says it is unbounded there
        instead of taking the edge of the sweep for a bound."""
        sums, counts = multiplicity @ self.sums, multiplicity @ self.counts
        found = self.fit(sums, counts, threshold)
        if found.status == "found":
            return float(np.log(found.seconds))
        return -UNBOUNDED if found.status == "unbracketed" else UNBOUNDED


def fit(points: Points, threshold: float) -> Fit:
    """The METG of all the points together."""
    if not len(points):
        return Fit(None, "none")
    table = _Table(points)
    return table.fit(table.sums.sum(axis=0), table.counts.sum(axis=0), threshold)


def seed_of(text: str) -> int:
    """A resampling seed from a name (campaign and system): the same runs give the same interval."""
    return zlib.crc32(text.encode())


def interval(points: Points, threshold: float, seed: int, resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """The 95% interval of fit()'s METG, resampling whole repetitions; None with fewer than two."""
    if not len(points):
        return None
    table = _Table(points)
    n = len(table.rep_ids)
    if n < 2:
        return None

    def log_of(chosen: np.ndarray) -> float:
        return table.log_metg(np.bincount(chosen, minlength=n).astype(float), threshold)

    return bootstrap_interval(n, log_of, seed, resamples)


def expanded_level(n: int) -> float:
    """The percentile interval's level that makes a CONFIDENCE interval from n resampled units
    (the expanded percentile interval)."""
    from scipy import stats
    tail = (1 - CONFIDENCE) / 2
    return float(1 - 2 * stats.norm.cdf(-math.sqrt(n / (n - 1)) * stats.t.ppf(1 - tail, n - 1)))


def bootstrap_interval(n: int, log_of, seed: int, resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """scipy.stats.bootstrap's expanded percentile interval of a statistic over n whole units
    (repetitions), as seconds: log_of(indices of the units drawn) is its log for one resample."""
    from scipy import stats

    def statistic(indices: np.ndarray, axis: int = -1) -> np.ndarray:
        indices = np.moveaxis(np.asarray(indices), axis, -1)
        values = [log_of(row) for row in indices.reshape(-1, indices.shape[-1])]
        return np.asarray(values).reshape(indices.shape[:-1])

    with warnings.catch_warnings():
        # Identical resamples (repetitions that agree exactly) are a zero-width interval, not an error.
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap((np.arange(n),), statistic, vectorized=True, n_resamples=resamples,
                                 method="percentile", confidence_level=expanded_level(n),
                                 rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    # A bound among the resamples without a crossing is no size: 0 or infinity ("unbounded"), and
    # so is a percentile interpolated between such a resample and a real one (beyond e^50 s).
    return (0.0 if low <= -BEYOND_ANY_SIZE else float(np.exp(low)),
            math.inf if high >= BEYOND_ANY_SIZE else float(np.exp(high)))
