"""A system's METG and its 95% interval by one of the methods (metg.METG_METHODS), from its
counted runs: the summary that every table, figure, comparison and stored record reads.

- fit (default): one monotone fit over every size and repetition (measure/metg/fit.py), its
  interval from resampling whole repetitions;
- median: each repetition's own METG (metg.metg_of_curve), their median: the harness's figure
  before the fit, kept so that a campaign stored with it reads the same; its interval is the
  bootstrap of that median over the repetitions;
- paper: the SC20 paper's reduction (metg.paper_metg), its interval from resampling whole
  repetitions as the fit's.
"""

from __future__ import annotations

import numpy as np

from taskbench.measure.metg import fit as metg_fit
from taskbench.measure.metg.methods import CurvePoint, MetgSummary, median_metg, metg_of_curve, paper_metg

MIN_REPS_FOR_INTERVAL = 2


def estimate(reps: dict[int, list[CurvePoint]], threshold: float, method: str = "fit", seed: int = 0,
             full_reps: int | None = None) -> MetgSummary:
    """reps: {repetition: its counted points}; full_reps: the repetitions below it are whole
    curves, the others only the sizes added around the crossing (measure/sweep/settle.py). The whole curves'
    own METGs are kept in every method's summary (the sweep steers by them; the median method
    is theirs)."""
    whole = {rep: points for rep, points in reps.items() if full_reps is None or rep < full_reps}
    values = [metg_of_curve(points, threshold) for _, points in sorted(whole.items())]
    summary = MetgSummary(values, method, found=sum(v.seconds is not None for v in values))
    if method == "median":
        _median(summary, seed)
    elif method == "paper":  # the paper's repetitions are whole curves: the added ones would be refused
        _paper(summary, whole, threshold, seed)
    else:
        _fit(summary, reps, threshold, seed)
    if summary.low is not None and summary.seconds is not None:
        # A percentile interval may miss its own estimate where the resampled fits are skewed
        # (few repetitions at the edge of a size): widened to hold it, a figure never lies outside.
        summary.low, summary.high = min(summary.low, summary.seconds), max(summary.high, summary.seconds)
    if summary.status == "unbracketed":
        summary.warnings.append(f"still at or above {threshold:.0%} efficiency at the smallest size: the METG is "
                                "at most this")
    return summary


def _fit(summary: MetgSummary, reps: dict[int, list[CurvePoint]], threshold: float, seed: int) -> None:
    points = metg_fit.Points.of_curves(reps)
    found = metg_fit.fit(points, threshold)
    summary.seconds, summary.status = found.seconds, found.status
    summary.deciding = tuple(size for size in (found.above, found.below) if size is not None)
    if found.status != "none":
        summary.low, summary.high = metg_fit.interval(points, threshold, seed) or (None, None)


def _median(summary: MetgSummary, seed: int) -> None:
    found = [v for v in summary.values if v.seconds is not None]
    summary.seconds = median_metg(found)
    if summary.seconds is None:
        return
    summary.status = "unbracketed" if any(v.status == "unbracketed" for v in found) else "found"
    summary.deciding = tuple(sorted({size for v in found for size in v.deciding}, reverse=True))
    if len(found) >= MIN_REPS_FOR_INTERVAL:
        logs = np.log([v.seconds for v in found])
        interval = metg_fit.bootstrap_interval(len(logs), lambda chosen: np.median(logs[chosen]), seed)
        summary.low, summary.high = interval or (None, None)


def _paper(summary: MetgSummary, reps: dict[int, list[CurvePoint]], threshold: float, seed: int) -> None:
    summary.seconds = paper_metg(reps, threshold)
    if summary.seconds is None:
        return
    summary.status = "found"
    keys = sorted(reps)
    if len(keys) < MIN_REPS_FOR_INTERVAL:
        return

    def log_of(chosen) -> float:
        value = paper_metg({k: reps[keys[i]] for k, i in enumerate(chosen)}, threshold)
        return np.log(value) if value else np.nan

    summary.low, summary.high = metg_fit.bootstrap_interval(len(keys), log_of, seed) or (None, None)
