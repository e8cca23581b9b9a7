"""The interval a rerun honours (measure/metg/rerun.py): the machine's drift between campaigns measured
from the campaigns stored here, pooled over configurations until one has its own, and the
prediction interval of a rerun's METG it makes, tested against draws whose drift is known."""

import math

import numpy as np
import pytest

from taskbench.measure.metg import rerun

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
    from taskbench.measure.sweep import settle
    from taskbench.measure.sweep.params import SweepParams
    p = SweepParams(systems=["a"])
    assert settle.target(p, None) == p.target_interval == 0.05
    assert settle.target(p, 0.10) == pytest.approx(rerun.Z * 0.05)
    assert settle.target(p, 0.01) == 0.05
    assert settle.target(SweepParams(systems=["a"], target_interval=0.0), 0.10) == 0.0


def test_the_prior_stands_alone_only_where_nothing_is_measured_and_yields_to_measurement():
    alone = rerun.with_prior(None)
    assert (alone.tau, alone.df, alone.campaigns) == (rerun.PRIOR_TAU, rerun.PRIOR_DF, 0)
    assert "none measured here yet" in alone.describe()
    # The variances weighed by their degrees of freedom: 12 x 0.063^2 and 36 x 0.02^2 over 48.
    measured = rerun.Drift(0.02, 36, 42, 6)
    weighed = rerun.with_prior(measured)
    assert weighed.df == 36 + rerun.PRIOR_DF and weighed.campaigns == 42
    assert weighed.tau == pytest.approx(math.sqrt((36 * 0.02 ** 2 + rerun.PRIOR_DF * rerun.PRIOR_TAU ** 2) / 48))
    assert "weighed with this project's VMs'" in weighed.describe()
    # A long history of its own outweighs the prior: within 15% of the measured drift at 400 df.
    assert rerun.with_prior(rerun.Drift(0.02, 400, 401, 1)).tau == pytest.approx(0.02, rel=0.15)


def test_a_first_campaigns_interval_holds_a_rerun_its_own_repetitions_miss():
    """Campaigns drawn with this project's VMs' drift and a 2% within error: the first campaign
    of a machine, with nothing measured here, holds the second's METG about 95% of the time
    with the prior, where its repetitions' own interval holds it far less often."""
    rng = np.random.default_rng(11)
    sigma, held, own_held, trials = 0.02, 0, 0, 400
    for _ in range(trials):
        first, second = math.log(2e-7) + rng.normal(0, rerun.PRIOR_TAU, 2) + rng.normal(0, sigma, 2)
        m, within = math.exp(first), (math.exp(first - rerun.Z * sigma), math.exp(first + rerun.Z * sigma))
        low, high = rerun.rerun_interval(m, *within, rerun.with_prior(None))
        held += low <= math.exp(second) <= high
        own_held += within[0] <= math.exp(second) <= within[1]
    assert held / trials > 0.9 and own_held / trials < 0.5


def test_two_systems_of_one_campaign_are_weighed_on_its_own_intervals():
    """The drift between campaigns moves every system of a campaign alike: the answer's "told
    apart" and the -q table's campaign columns use the campaign's own interval, the printed
    interval stays the one a rerun honours."""
    from taskbench.measure.metg.methods import MetgSummary
    from taskbench.report.tables import differ
    drift = rerun.with_prior(None)
    a = MetgSummary([], seconds=1.00e-6, low=0.80e-6, high=1.25e-6, within_low=0.97e-6, within_high=1.03e-6, drift=drift)
    b = MetgSummary([], seconds=1.15e-6, low=0.92e-6, high=1.44e-6, within_low=1.10e-6, within_high=1.20e-6, drift=drift)
    assert a.campaign_interval == (0.97e-6, 1.03e-6) and differ(a, b)
    # Without a drift (a simulation, one repetition) the interval is the campaign's already.
    c = MetgSummary([], seconds=1.0e-6, low=0.9e-6, high=1.1e-6)
    assert c.campaign_interval == (0.9e-6, 1.1e-6) and not differ(c, MetgSummary([], seconds=1.05e-6, low=1e-6, high=1.1e-6))


def test_an_interval_with_a_side_the_data_cannot_place_stays_unbounded():
    """A campaign whose own interval is unbounded above promises a rerun nothing bounded (the
    moved campaign of issue 60's acceptance printed 3.01 µs (2.56-3.52) over an own interval
    from 2.57 µs, unbounded above)."""
    assert rerun.rerun_interval(3.01e-6, 2.57e-6, math.inf, rerun.with_prior(None)) == (2.57e-6, math.inf)
    assert rerun.rerun_interval(3.01e-6, 0.0, 3.5e-6, rerun.with_prior(None)) == (0.0, 3.5e-6)
