"""--metg-method paper: the harness's repetitions reduced the SC20 paper's way give the METG that
the paper's reduction of the same runs as a Task Bench log gives, and not the harness's own
median where one slow repetition pulls the mean."""
from __future__ import annotations

import pytest

from taskbench.measure.metg.methods import CurvePoint, median_metg, metg_of_curve, paper_metg
from taskbench.reference import paper_metg as paper
from taskbench.reference.task_bench_log import LogRun

PEAK, CORES, TASKS = 1e10, 4, 400
FLOPS = {4096: 8e10, 2048: 4e10, 1024: 2e10, 512: 1e10}
# elapsed seconds per repetition: the second one slow at 1024 and 512
ELAPSED = {0: {4096: 8.0, 2048: 4.0, 1024: 2.4, 512: 2.0}, 1: {4096: 8.0, 2048: 4.0, 1024: 5.0, 512: 4.0}}


def as_curve_points(rep: int) -> list[CurvePoint]:
    return [CurvePoint(it, t * CORES / TASKS, FLOPS[it] / t / PEAK) for it, t in ELAPSED[rep].items()]


def test_the_harness_repetitions_reduced_the_papers_way_match_the_papers_reduction_of_the_log():
    reps = {rep: as_curve_points(rep) for rep in ELAPSED}
    log = [LogRun((it,), TASKS, FLOPS[it], t) for rep in ELAPSED for it, t in ELAPSED[rep].items()]
    expected = paper.metg(paper.curve(log, nodes=1, peak=PEAK, cores_per_node=CORES))
    assert paper_metg(reps, 0.5) == pytest.approx(expected, rel=1e-12)
    # By hand: the mean curve has 1024 at 37 ms and 54.05%, 512 at 30 ms and 33.3%: linearly,
    # 30 ms + (50 - 33.3) / (54.05 - 33.3) x 7 ms.
    assert expected == pytest.approx(0.03 + (0.5 - 1 / 3) / (20 / 37 - 1 / 3) * 0.007, rel=1e-9)
    # The harness's own: a METG per repetition (20 ms, never below 50%; 40 ms), their median.
    assert median_metg([metg_of_curve(points, 0.5) for points in reps.values()]) == pytest.approx(0.03)
