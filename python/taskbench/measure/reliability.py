"""Whether a METG is a result (docs/harness.md, "Noise"): the rules beyond the agreement of its
repetitions (metg.summarize), from what its campaign saw while it measured. Pure functions.

A METG is unreliable when
  - the sizes it was read from ran beside other processes: their background CPU, wall-weighted
    over every try of those sizes, above DISTURBED_CORES cores. Runs near the METG mostly last
    milliseconds, too short for one to measure (runner.measurable: /proc/stat counts 10 ms
    ticks, and a sum of such runs adds up their tick errors); where one of them is, the whole
    campaign's background, over all its runs, stands in for theirs;
  - the core-to-core latency moved during the campaign (its start and end probes more than
    CHANGED_FACTOR apart), for a system that runs on several CPU cores: that latency is the
    hand-off cost a fine-grained METG measures (measure/placement.py);
  - one repetition's efficiency curve crosses the threshold more than once (in sweep order): the
    curve is bimodal or noisy, and there is no single crossing to read.
With one repetition there is no spread to judge, only these.
"""

from __future__ import annotations

from taskbench.launch.runner import DISTURBED_CORES, measurable
from taskbench.measure.placement import CHANGED_FACTOR


def background_load(runs: list[dict]) -> float | None:
    """Cores' worth of CPU other processes used during these runs (wall-weighted). From the
    signed CPU seconds where stored: one run's tick error is as often negative as positive, so
    it cancels in the sum, where the per-run load (never below 0) would add it up."""
    measured = [(r["background_cpu_seconds"] if r.get("background_cpu_seconds") is not None
                 else r["background_load"] * r["wall_seconds"], r["wall_seconds"]) for r in runs
                if r.get("background_load") is not None and r.get("wall_seconds")]
    total = sum(w for _, w in measured)
    return max(0.0, sum(seconds for seconds, _ in measured) / total) if total else None


def busy_campaign(campaign_runs: list[dict]) -> float | None:
    """The campaign's background load when it ran under sustained load (above DISTURBED_CORES
    on average), else None: every table, figure, export and comparison of it says so."""
    load = background_load(campaign_runs)
    return load if load is not None and load > DISTURBED_CORES else None


def busy_line(load: float) -> str:
    """What a campaign run under sustained background load says wherever it is shown."""
    return (f"BUSY MACHINE: other processes used {load:.2f} cores on average while this campaign ran; its "
            "figures are noisy, and a METG read from sizes that ran beside them is unreliable")


def latency_moved(campaign: dict) -> tuple[float, float] | None:
    """(start, end) one-way nanoseconds when the campaign's two probes are more than
    CHANGED_FACTOR apart, else None."""
    probes = (campaign.get("machine") or {}).get("core_to_core_one_way_ns") or []
    if len(probes) != 2 or None in probes or min(probes) <= 0:
        return None
    start, end = probes
    return (start, end) if max(start, end) > CHANGED_FACTOR * min(start, end) else None


def judge(values: list, system_runs: list[dict], campaign: dict, campaign_runs: list[dict], threshold: float,
          multicore_cpu: bool) -> list[str]:
    """Why a system's METG is not a result, beyond its repetitions' agreement: [] when it is.
    values: the MetgValue of each repetition, in repetition order (rep 0, 1, ...)."""
    reasons = []
    deciding = [r for rep, v in enumerate(values) for r in system_runs
                if v.deciding and (r.get("rep") or 0) == rep and r.get("iter") in v.deciding]
    if deciding:
        if all(measurable(r) for r in deciding if r.get("status") == "ok"):
            load = background_load(deciding)
            if load is not None and load > DISTURBED_CORES:
                reasons.append(f"the sizes it was read from ran beside other processes ({load:.2f} cores busy)")
        else:
            load = busy_campaign(campaign_runs)
            if load is not None:
                reasons.append(f"the sizes it was read from ran too briefly to measure other processes' load, "
                               f"and the campaign ran beside them ({load:.2f} cores busy on average)")
    moved = latency_moved(campaign)
    if moved and multicore_cpu:
        reasons.append(f"the core-to-core latency moved from {moved[0]:.0f} ns to {moved[1]:.0f} ns during the "
                       "campaign (the CPUs' placement changed)")
    bumpy = [rep for rep, v in enumerate(values) if v.crossings > 1]
    if bumpy:
        reasons.append(f"the efficiency crosses {threshold:.0%} {values[bumpy[0]].crossings} times in repetition "
                       f"{bumpy[0] + 1} (a curve with no single crossing)")
    return reasons
