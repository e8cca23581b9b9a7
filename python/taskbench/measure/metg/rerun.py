"""What a rerun of a campaign on the same machine gives: the machine's drift between campaigns,
measured from the campaigns stored here, and the interval a rerun's METG falls in.

A campaign's repetitions all run in the same minutes, so the interval they give (measure/metg/fit.py)
says how well this campaign pins its METG down, not where the next campaign's lands: on a VM
the host moves the vCPUs and shares the cores with its other tenants over minutes, and the next
campaign meets another machine. That drift is measured where it shows, between campaigns: for
each graph and system measured here more than once (its "configuration": the graph, the
threshold, the method, the layout, the system), the spread of the campaigns' log METGs around
their mean, less what the campaigns' own intervals already account for (a random-effects
model's between-campaign variance, tau^2, by the method of moments, pooled over the
configurations; one measured OWN_CAMPAIGNS times or more uses its own). The interval of a figure is
then a prediction interval for a rerun: log METG +- t(df) x sqrt(2 (s^2 + tau^2)), s the
campaign's own (its interval's half-width in log over 1.96), since a rerun has a drift and a
within-campaign error of its own. Only campaigns made before this one, or with it, count: a
figure does not change when later campaigns are stored.

The drift measured here is weighed with a prior, the drift measured on this project's 2-core VMs
(PRIOR_TAU, as if from PRIOR_DF degrees of freedom): a machine's first campaign has no rerun to
measure it from, and its repetitions' own interval missed the next campaign in most pairs
(issue 60: ±5% against reruns 10-21% apart); its first few give a variance too rough to stand
alone (a t quantile of 12.7 at one degree of freedom). As campaigns accumulate, the machine's
own measurement outweighs the prior. The sweep's repetitions (campaign.drift_of) take the
measured drift only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z = 1.959963984540054  # the normal quantile of a 95% interval, as the bootstrap's within intervals are
# A configuration's own drift once it has this many campaigns; before, the machine's pooled: a
# variance from 3 degrees of freedom (4 campaigns) takes a t quantile of 3.18, an interval half
# again as wide as the pooled one's (measured over six quick starts: ±51% against ±33%).
OWN_CAMPAIGNS = 10
# The prior: the pooled between-campaign drift of log METG measured on this project's 2-core VMs,
# the larger of the two kinds' (docs/harness.md, "How far a METG holds still"): an AMD EPYC VM,
# 0.063 from 4 quick starts of f444eda (12 degrees of freedom over 6 systems), and an Intel Xeon
# VM, 0.052 from 6 quick starts of 7b0f5b1 (30). Its weight is the AMD measurement's.
PRIOR_TAU = 0.063
PRIOR_DF = 12
# The parameters that make two campaigns the same configuration (the sweep's own knobs, its
# repetitions, tries and sizes, do not change what it measures).
CONFIGURATION = ("pattern", "kernel", "steps", "width", "radix", "threshold", "scratch", "extra_flags", "ranks",
                 "threads_per_rank", "launcher", "cores", "externals", "graphs", "hosts", "metg_method")


@dataclass(frozen=True)
class Drift:
    """The between-campaign spread of log METG measured on this machine for one configuration."""
    tau: float  # standard deviation of log METG between campaigns (0.08: campaigns 8% apart)
    df: int  # degrees of freedom it was measured with
    campaigns: int  # campaigns it was measured from
    configurations: int  # configurations pooled (1: the figure's own)

    prior_df: int = 0  # of df, the prior's (PRIOR_DF; 0: measured here alone)

    def describe(self) -> str:
        if self.campaigns == 0:
            return (f"±{self.tau:.1%} between campaigns, the drift of this project's VMs "
                    f"(none measured here yet)")
        where = ("this graph's" if self.configurations == 1
                 else f"{self.configurations} graphs' and systems'")
        prior = " weighed with this project's VMs'" if self.prior_df else ""
        return f"±{self.tau:.1%} between campaigns, from {where} {self.campaigns} campaigns here{prior}"


def configuration(params: dict, system: str) -> tuple:
    return (system, *(repr(params.get(key)) for key in CONFIGURATION))


def log_within(result: dict) -> tuple[float, float] | None:
    """(log METG, its within-campaign variance) of one system's stored result, or None where it
    is no quiet figure with an interval."""
    metg = result.get("metg_seconds")
    low, high = result.get("within_interval_seconds") or result.get("interval_seconds") or (None, None)
    if not metg or not low or not high or not result.get("reliable") or result.get("status") != "found":
        return None
    if not (0 < low <= metg <= high < math.inf):
        return None
    return math.log(metg), (math.log(high / low) / (2 * Z)) ** 2


def history(campaigns: list[dict], machine_id: str, until: str) -> dict[tuple, list[tuple[float, float]]]:
    """{configuration: [(log METG, within variance)]} of the finished measured METG campaigns of
    this machine made at or before `until` (a campaign's created time)."""
    found: dict[tuple, list[tuple[float, float]]] = {}
    for c in campaigns:
        params = c.get("params") or {}
        if (c.get("kind") != "metg" or c.get("status") != "done" or c.get("machine_id") != machine_id
                or params.get("simulation") or (c.get("created") or "") > until or not c.get("results")):
            continue
        for system, result in (c["results"].get("systems") or {}).items():
            point = log_within(result)
            if point is not None:
                found.setdefault(configuration(params, system), []).append(point)
    return found


def _moments(groups: list[list[tuple[float, float]]]) -> tuple[float, int, int]:
    """(tau^2, degrees of freedom, campaigns) of groups of (log METG, within variance): the pooled
    spread of each group around its mean less the mean within variance, never below 0."""
    squares, df, within, count = 0.0, 0, [], 0
    for group in groups:
        if len(group) < 2:
            continue
        values = np.array([y for y, _ in group])
        squares += float(np.sum((values - values.mean()) ** 2))
        df += len(group) - 1
        within += [v for _, v in group]
        count += len(group)
    if df == 0:
        return 0.0, 0, 0
    return max(0.0, squares / df - float(np.mean(within))), df, count


def drift(found: dict[tuple, list[tuple[float, float]]], key: tuple) -> Drift | None:
    """The drift a figure of configuration `key` takes: its own where it has OWN_CAMPAIGNS, else
    the machine's pooled over every configuration measured twice or more; None where none is."""
    own = found.get(key, [])
    if len(own) >= OWN_CAMPAIGNS:
        tau2, df, count = _moments([own])
        return Drift(math.sqrt(tau2), df, count, 1)
    tau2, df, count = _moments(list(found.values()))
    if df == 0:
        return None
    return Drift(math.sqrt(tau2), df, count, sum(len(g) >= 2 for g in found.values()))


def with_prior(measured: Drift | None) -> Drift:
    """The drift a figure's rerun interval takes: the measured one's variance and the prior's,
    weighed by their degrees of freedom (the prior alone where none is measured here)."""
    if measured is None:
        return Drift(PRIOR_TAU, PRIOR_DF, 0, 0, PRIOR_DF)
    df = measured.df + PRIOR_DF
    tau2 = (measured.df * measured.tau ** 2 + PRIOR_DF * PRIOR_TAU ** 2) / df
    return Drift(math.sqrt(tau2), df, measured.campaigns, measured.configurations, PRIOR_DF)


def rerun_interval(seconds: float, low: float, high: float, found: Drift) -> tuple[float, float]:
    """The prediction interval of a rerun's METG around this campaign's (the module docstring),
    from this campaign's own interval (low, high) and the drift."""
    from scipy import stats
    if not 0 < low <= high < math.inf:  # a side this campaign cannot place: no rerun can be promised more
        return low, high
    s2 = (math.log(high / low) / (2 * Z)) ** 2
    half = float(stats.t.ppf(0.975, found.df)) * math.sqrt(2 * (s2 + found.tau ** 2))
    return seconds * math.exp(-half), seconds * math.exp(half)
