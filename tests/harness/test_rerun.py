"""The interval a rerun honours (measure/rerun.py): the machine's drift between campaigns measured
from the campaigns stored here, pooled over configurations until one has its own, and the
prediction interval of a rerun's METG it makes, tested against draws whose drift is known."""

import math

import numpy as np
import pytest

from taskbench.measure import rerun

PARAMS = {"pattern": "stencil_1d", "kernel": "compute_bound", "steps": 1000, "width": 2, "threshold": 0.5}


def campaign(name, created, metgs, within=0.02, machine="m", params=PARAMS, **extra):
    """A finished METG campaign whose systems published `metgs` with intervals of ±within."""
    systems = {system: {"metg_seconds": m, "interval_seconds": [m * (1 - within), m * (1 + within)],
                        "reliable": True, "status": "found"} for system, m in metgs.items()}
    return {"name": name, "kind": "metg", "status": "done", "machine_id": machine, "created": created,
            "params": params, "results": {"systems": systems}, **extra}


def test_no_drift_without_a_configuration_measured_twice():
    found = rerun.history([campaign("a", "1", {"native": 2e-7, "serial": 5e-8})], "m", "9")
    assert rerun.drift(found, rerun.configuration(PARAMS, "native")) is None


def test_the_drift_is_the_spread_between_campaigns_less_their_own_error():
    """Two systems, campaigns 10% apart in log METG around their means, each interval ±2%."""
    n = rerun.OWN_CAMPAIGNS
    metgs = [(2.0e-7 * math.exp(d), 5.0e-8 * math.exp(-d)) for d in [-0.1, 0.1] * (n // 2)]
    stored = [campaign(f"c{k:02d}", f"{k:02d}", {"native": a, "serial": b}) for k, (a, b) in enumerate(metgs)]
    found = rerun.history(stored, "m", "99")
    native = rerun.drift(found, rerun.configuration(PARAMS, "native"))
    within = (math.log(1.02 / 0.98) / (2 * rerun.Z)) ** 2
    # Its own campaigns: sample variance n x 0.01 / (n - 1), less the within variance.
    assert native.configurations == 1 and native.df == n - 1 and native.campaigns == n
    assert native.tau == pytest.approx(math.sqrt(n * 0.01 / (n - 1) - within))
    # Three campaigns each: pooled over both systems.
    pooled = rerun.drift(rerun.history(stored[:3], "m", "99"), rerun.configuration(PARAMS, "native"))
    assert pooled.configurations == 2 and pooled.df == 4 and pooled.campaigns == 6


def test_only_this_machines_finished_measured_campaigns_made_until_then_count():
    stored = [campaign("a", "1", {"native": 2e-7}), campaign("b", "2", {"native": 3e-7}),
              campaign("late", "5", {"native": 9e-7}), campaign("other", "3", {"native": 9e-7}, machine="n"),
              campaign("sim", "3", {"native": 9e-7}, params={**PARAMS, "simulation": {"nodes": 2}}),
              campaign("wide", "3", {"native": 9e-7}, params={**PARAMS, "width": 4}),
              campaign("running", "3", {"native": 9e-7}, status="running")]
    found = rerun.history(stored, "m", "4")
    assert sorted(found) == sorted([rerun.configuration(PARAMS, "native"),
                                    rerun.configuration({**PARAMS, "width": 4}, "native")])
    assert [y for y, _ in found[rerun.configuration(PARAMS, "native")]] == [math.log(2e-7), math.log(3e-7)]


def test_an_unreliable_or_unbounded_figure_measures_no_drift():
    bad = campaign("a", "1", {"native": 2e-7})
    bad["results"]["systems"]["native"]["reliable"] = False
    unbounded = campaign("b", "1", {"native": 2e-7})
    unbounded["results"]["systems"]["native"]["interval_seconds"] = [1.9e-7, math.inf]
    assert rerun.history([bad, unbounded], "m", "9") == {}


def test_the_rerun_interval_covers_reruns_drawn_with_a_known_drift():
    """Campaigns whose log METG is drawn with a between-campaign drift of 8% and a within error
    of 2%: each one's prediction interval, from the drift measured on the campaigns up to it,
    holds the next campaign's METG about 95% of the time, where its own interval alone would
    hold it far less often."""
    rng = np.random.default_rng(7)
    tau, sigma = 0.08, 0.02
    held = own_held = trials = 0
    for series in range(60):
        logs = math.log(2e-7) + rng.normal(0, tau, 8) + rng.normal(0, sigma, 8)
        stored = [campaign(f"c{k}", f"{k:02d}", {"native": math.exp(y)}, within=rerun.Z * sigma)
                  for k, y in enumerate(logs)]
        for k in range(3, 7):  # the drift measured on campaigns 0..k, the next is k + 1
            found = rerun.history(stored[:k + 1], "m", f"{k:02d}")
            d = rerun.drift(found, rerun.configuration(PARAMS, "native"))
            m = math.exp(logs[k])
            low, high = rerun.rerun_interval(m, m * (1 - rerun.Z * sigma), m * (1 + rerun.Z * sigma), d)
            nxt = math.exp(logs[k + 1])
            held += low <= nxt <= high
            own_held += m * (1 - rerun.Z * sigma) <= nxt <= m * (1 + rerun.Z * sigma)
            trials += 1
    assert held / trials > 0.9 and own_held / trials < 0.5


def test_repetitions_are_added_only_until_the_drift_would_swamp_them():
    """Where this machine's drift between campaigns is measured, the added repetitions aim at half
    of what it gives a figure (more would not narrow the interval a rerun honours), never below
    --target-interval, and --target-interval 0 still adds none."""
    from taskbench.measure import settle
    from taskbench.measure.sweep import SweepParams
    p = SweepParams(systems=["a"])
    assert settle.target(p, None) == p.target_interval == 0.05
    assert settle.target(p, 0.10) == pytest.approx(rerun.Z * 0.05)
    assert settle.target(p, 0.01) == 0.05
    assert settle.target(SweepParams(systems=["a"], target_interval=0.0), 0.10) == 0.0
