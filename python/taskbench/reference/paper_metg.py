"""METG(50%) as the SC20 paper reduced its data (checked by hand against its raw logs; the
harness's own METG, docs/harness.md, takes the best or median repetition instead of the mean):

- per problem size, the mean elapsed time over its repetitions;
- efficiency: FLOP/s per node over the node's peak (Cori's Haswell nodes: 1.263719 TFLOP/s);
- task granularity: elapsed x nodes x cores per node (32) / tasks;
- METG: the smallest granularity whose efficiency is at least 50%, linearly interpolated to the
  50% crossing between that size and the next smaller problem size (by iterations, not by
  granularity: a small size that ran slowly must not be taken for the neighbour)."""

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


def metg(points: list[Point], threshold: float = THRESHOLD) -> float | None:
    """METG(threshold) of a curve whose points run from the largest problem size down; None
    where no size reaches the threshold."""
    reaching = [k for k, p in enumerate(points) if p.efficiency >= threshold]
    if not reaching:
        return None
    k = min(reaching, key=lambda j: points[j].granularity_seconds)
    above = points[k]
    if k + 1 == len(points) or points[k + 1].efficiency >= threshold:
        return above.granularity_seconds
    below = points[k + 1]
    share = (threshold - below.efficiency) / (above.efficiency - below.efficiency)
    return below.granularity_seconds + share * (above.granularity_seconds - below.granularity_seconds)
