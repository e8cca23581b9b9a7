"""A campaign during which the CPUs' placement moved (measure/metg/by_placement.py): runs tagged
with two placements by the probes around them, fed to the campaign's analysis. A placement whose
runs never reach the sizes the METG is read between gives no figure and widens nothing (before:
a few far-placement runs at large sizes made "254 ns (252–157286)"); two that both reach them
each give theirs, and the interval spans both."""

import pytest

from taskbench.measure.analysis import analyze_runs
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams

PEAK = 100e9  # FLOP/s of the best run
KERNEL_PER_ITER = 1.2e-9  # seconds of kernel time per task and -iter at the peak
SIZES = [262144, 65536, 16384, 4096, 1024, 256, 128, 90, 64, 45, 32]
NEAR_OVERHEAD, FAR_OVERHEAD = 125e-9, 8e-6  # seconds per task under each placement
NOISE = [1.0, 0.97, 1.02, 0.99, 1.01, 0.98]


def efficiency(iterations, overhead, noise=1.0):
    work = iterations * KERNEL_PER_ITER
    return min(1.0, work / (work + overhead) * noise)


class Campaign:
    """Runs of `native` and the probes between them, in the order a sweep makes them."""

    def __init__(self):
        self.runs, self.probes = [], []

    def probe(self, one_way_ns):
        self.probes.append({"after_run_id": len(self.runs), "one_way_ns": one_way_ns, "workers": 2, "width": 2,
                            "no_runtime_row_ns": 2 * one_way_ns, "exchange_row_ns": one_way_ns,
                            "metg_lower_bound_seconds": 1e-7})

    def run(self, iterations, rep, overhead, one_way_ns):
        e = efficiency(iterations, overhead, NOISE[len(self.runs) % len(NOISE)])
        self.runs.append({"id": len(self.runs) + 1, "system": "native", "iter": iterations, "rep": rep, "try": 0,
                          "status": "ok", "cores": 2, "flops_per_second": e * PEAK,
                          "granularity_seconds": iterations * KERNEL_PER_ITER / e, "wall_seconds": 0.01})
        self.probe(one_way_ns)

    def analysis(self):
        params = SweepParams(systems=["native"], steps=1000, width=2, reps=3)
        campaign = {"name": "moved", "params": params.to_dict(), "machine": {"placement_probes": self.probes}}
        return analyze_runs(campaign, self.runs, PeakTable("compute_bound", processors={"native": "cpu"}))


def near_sweep(c: Campaign):
    """Three whole repetitions and three added at the crossing (near 250 ns), near cores."""
    c.probe(50)
    c.probe(52)
    for rep in range(6):
        for iterations in (SIZES if rep < 3 else [128, 90, 64]):
            c.run(iterations, rep, NEAR_OVERHEAD, 50 + len(c.runs) % 5)


def test_a_placement_far_from_the_crossing_gives_no_figure_and_widens_nothing():
    c = Campaign()
    near_sweep(c)
    for k, iterations in enumerate([65536, 65536, 16384, 16384, 4096, 4096]):  # the CPUs moved a while
        c.run(iterations, 6 + k % 3, FAR_OVERHEAD, 250 + k)
    c.probe(51)
    c.probe(52)
    s = c.analysis().curves["native"].summary
    alone = Campaign()
    near_sweep(alone)
    assert s.seconds == pytest.approx(alone.analysis().curves["native"].summary.seconds)
    assert 240e-9 < s.seconds < 260e-9 and s.high < 2 * s.seconds and s.low > s.seconds / 2
    assert s.reliable, s.unreliable
    near, far = s.placements
    assert near.seconds == pytest.approx(s.seconds) and far.seconds is None
    # the first far run sits between a near probe and a far one: it belongs to neither
    assert far.text == ("far cores (250-255 ns one way): 5 runs, too few near the crossing (-iter 90 and 128, "
                        "2 repetitions each): set apart")


def test_two_placements_that_reach_the_crossing_give_each_its_figure_and_one_interval_over_both():
    c = Campaign()
    near_sweep(c)
    c.probe(250)
    for rep in (6, 7):  # the CPUs moved for two whole repetitions: their sweep went up to its crossing
        for iterations in (1024, 512, 362, 256, 181, 128, 90, 64):
            c.run(iterations, rep, 2 * NEAR_OVERHEAD, 250 + rep)
    c.probe(51)
    c.probe(52)
    s = c.analysis().curves["native"].summary
    near, far = s.placements
    assert near.seconds == pytest.approx(250e-9, rel=0.05) and far.seconds == pytest.approx(500e-9, rel=0.1)
    assert s.low <= near.seconds and s.high >= far.seconds
    assert not s.reliable and s.unreliable[0].startswith("the CPUs' placement changed during the campaign")


def test_a_placement_whose_runs_at_the_crossing_fall_short_marks_the_figure():
    """The CPUs moved for two repetitions of the sizes around the crossing, and there every run
    fell below 50%: the METG differs under that placement, measured, and the figure says so."""
    c = Campaign()
    near_sweep(c)
    c.probe(250)
    for rep in (6, 7):
        for iterations in (128, 90, 64):
            c.run(iterations, rep, 4 * NEAR_OVERHEAD, 250 + rep)
    c.probe(51)
    c.probe(52)
    s = c.analysis().curves["native"].summary
    near, far = s.placements
    assert near.seconds is not None and far.seconds is None and far.differs
    assert "lie below 50% efficiency: its METG is larger" in far.text
    assert not s.reliable and "far cores" in s.unreliable[0]
    assert s.high < 2 * s.seconds  # never a bound from sizes the placement did not cross at
