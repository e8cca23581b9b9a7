"""METG(50%) as the SC20 paper reduced its data: the rule of the original Task Bench's
scripts/chart_metg.py (its function analyze), which drew the paper's figures. The harness's own
METG (docs/harness.md, measure/metg/fit.py) fits one curve through every run of the sweep instead
of taking the mean per size (`--metg-method paper` reads this rule).

- per problem size, the mean elapsed time over its repetitions;
- efficiency: FLOP/s per node over the node's peak (Cori's Haswell nodes: 1.263719 TFLOP/s);
- task granularity: elapsed x nodes x cores per node (32) / tasks;
- METG: of the sizes whose efficiency is at least 50%, the one with the smallest granularity;
  only where the next smaller problem size (by iterations, not by granularity) has a smaller
  granularity still, the linear interpolation between the two at 50% efficiency; otherwise
  that size's own granularity.

The original stops (an assertion, and the paper's figure has no point) on a curve that never
falls below 50%, never reaches it, reaches 150% anywhere, ends at the chosen size, or whose next
smaller size has fewer repetitions; metg() gives None there, and refusal() says why. It also
refuses a whole log whose runs do not line up (one cut short): task_bench_log leaves such a run
out instead, so that log keeps a METG here (one log of the paper's: docs/reference.md)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from taskbench.reference.task_bench_log import LogRun

CORI_HASWELL_PEAK = 1.263719e12  # FLOP/s of one node, as the paper's efficiencies use
CORI_CORES_PER_NODE = 32
THRESHOLD = 0.5


@dataclass(frozen=True)
class Point:
    iterations: tuple[int, ...]
    reps: int
    granularity_seconds: float
    efficiency: float
    # per node, every graph's timestep together: the size Fig. 13 normalizes (0: not known)
    flops_per_step: float = 0.0


def curve(runs: list[LogRun], nodes: int, peak: float = CORI_HASWELL_PEAK,
          cores_per_node: int = CORI_CORES_PER_NODE) -> list[Point]:
    """The efficiency curve (the paper's Fig. 7): one point per problem size, largest first."""
    sizes: dict[tuple[int, ...], list[LogRun]] = {}
    for run in runs:
        sizes.setdefault(run.iterations, []).append(run)
    points = []
    for iterations, same in sorted(sizes.items(), reverse=True):  # largest problem first
        elapsed = statistics.mean(r.elapsed_seconds for r in same)
        tasks, flops, steps = same[0].tasks, same[0].flops, same[0].steps
        if elapsed <= 0 or tasks <= 0:
            continue
        points.append(Point(iterations, len(same), elapsed * nodes * cores_per_node / tasks,
                            flops / elapsed / nodes / peak, flops / max(steps, 1) / nodes))
    return points


# The original's assertions on a curve, each a sign that the runs are not a whole sweep.
TOO_EFFICIENT = 1.5  # a run timed wrongly


def _best(points: list[Point], threshold: float) -> int:
    """The size at or above the threshold with the smallest granularity (the first on a tie)."""
    reaching = [k for k, p in enumerate(points) if p.efficiency >= threshold]
    return min(reaching, key=lambda k: points[k].granularity_seconds)


def refusal(points: list[Point], threshold: float = THRESHOLD) -> str | None:
    """Why the original's scripts give this curve no METG (None: they give one)."""
    if not any(p.efficiency >= threshold for p in points):
        return f"no size reaches {threshold:.0%} efficiency"
    if all(p.efficiency >= threshold for p in points):
        return f"no size falls below {threshold:.0%} efficiency (a sweep cut short?)"
    if any(p.efficiency >= TOO_EFFICIENT for p in points):
        return f"an efficiency of {TOO_EFFICIENT:.0%} or more (a run timed wrongly?)"
    k = _best(points, threshold)
    if k + 1 == len(points):
        return "no smaller size after the one that decides"
    if points[k + 1].reps < points[k].reps:
        return "the next smaller size has fewer repetitions (a sweep cut short?)"
    return None


def metg(points: list[Point], threshold: float = THRESHOLD) -> float | None:
    """METG(threshold) of a curve whose points run from the largest problem size down; None
    where the original's scripts refuse the curve (refusal())."""
    if refusal(points, threshold):
        return None
    k = _best(points, threshold)
    above, below = points[k], points[k + 1]
    # A next size that is coarser (it ran slower) lies the wrong way: no interpolation toward it.
    if below.granularity_seconds >= above.granularity_seconds:
        return above.granularity_seconds
    # below is under the threshold (else it would be the best), so the crossing lies between them.
    share = (threshold - below.efficiency) / (above.efficiency - below.efficiency)
    return below.granularity_seconds + share * (above.granularity_seconds - below.granularity_seconds)
