"""From a campaign's stored runs to efficiency curves and METG per system (no I/O but the store)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from taskbench import units
from taskbench.launch import MPI_LAUNCHERS
from taskbench.measure.noise import disturbed
from taskbench.measure.kernels import throughput
from taskbench.measure.metg import fit as metg_fit, rerun
from taskbench.measure import placement
from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint, MetgSummary, efficiency, relative_spread
from taskbench.measure.metg.by_placement import per_placement
from taskbench.measure.peak import OwnPeak, PeakTable, load_peaks
from taskbench.measure.metg.reliability import background_load, busy_campaign, busy_line, judge, judge_missing
from taskbench.measure.sweep.params import SweepParams, best_of
from taskbench.measure.system_report import hosts_of
from taskbench.measure.traces import is_trace_run

# Repetitions of one point disagreeing by more than this are flagged in the report.
POINT_SPREAD_WARNING = 0.25


@dataclass
class SystemCurve:
    system: str
    cores: int | None
    peak: float | None
    reps: dict[int, list[CurvePoint]] = field(default_factory=dict)
    throughput: dict[int, list[float]] = field(default_factory=dict)  # iter -> values over reps
    summary: MetgSummary | None = None
    failures: list[dict] = field(default_factory=list)
    noisy_points: list[tuple[int, float]] = field(default_factory=list)  # (iter, spread)
    # (iter, rep, background load) of the points whose every try was disturbed (measure/noise.py)
    disturbed_points: list[tuple[int, int, float]] = field(default_factory=list)
    counted: dict[tuple[int, int], dict] = field(default_factory=dict)  # (iter, rep): the try that counts
    dependencies_per_task: float | None = None
    own_peak: OwnPeak | None = None  # an external system measured against its own best
    layout: str | None = None  # "ranks x threads" of an MPI system's runs
    processor: str = "cpu"  # "gpu": cores are task slots on the GPU (docs/gpu.md)
    # Across hosts: each host's processes and tasks in the largest run (system_report.hosts).
    hosts: dict[str, dict] | None = None

    @property
    def reference(self) -> bool:
        """On one CPU core (serial, python_serial): the reference without parallelism, whose METG
        is not comparable with a parallel system's."""
        return self.processor == "cpu" and (self.cores or 1) <= 1

    @property
    def cores_text(self) -> str:
        """"16", "16 (4 x 4)" (MPI: ranks x threads); a GPU system's "16 GPU slots (4 x 4)"."""
        if self.cores is None:
            return str(self.cores)
        count = units.count(self.cores, "GPU slot") if self.processor == "gpu" else str(self.cores)
        return f"{count} ({self.layout})" if self.layout else count


@dataclass
class CampaignAnalysis:
    campaign: dict
    params: SweepParams
    peaks: PeakTable
    curves: dict[str, SystemCurve]
    runs: list[dict]

    @property
    def name(self) -> str:
        return self.campaign["name"]

    @property
    def background_load(self) -> float | None:
        return background_load(self.runs)

    @property
    def busy(self) -> float | None:
        """The campaign's average background load when it ran under sustained load, else None."""
        return busy_campaign(self.runs)

    @property
    def nodes(self) -> int:
        return max((r.get("nodes") or 1 for r in self.runs if r["status"] == "ok"), default=1)


def analyze_runs(campaign: dict, runs: list[dict], peaks: PeakTable) -> CampaignAnalysis:
    params = SweepParams.from_dict(campaign["params"])
    runs = [r for r in runs if not is_trace_run(r)]  # tracing slows a run down: not a sweep point
    for run in runs:
        peaks.observe(run)
    by_system: dict[str, list[dict]] = defaultdict(list)
    for run in runs:
        by_system[run["system"]].append(run)
    probes = (campaign.get("machine") or {}).get("placement_probes") or []
    seen = placement.placements(probes)
    curves = {}
    for system in params.systems:
        system_runs = by_system.get(system, [])
        ok = [r for r in system_runs if r["status"] == "ok"]
        cores = ok[0].get("cores") if ok else (system_runs[0].get("cores") if system_runs else None)
        curve = SystemCurve(system, cores, peaks.peak_for(system, cores), processor=peaks.processor_of(system))
        curve.failures = [r for r in system_runs if r["status"] != "ok"]
        if ok and params.cluster:  # across hosts: hosts x processes per host x threads
            curve.hosts = hosts_of(max(ok, key=lambda r: r["iter"]))
            n = len(params.cluster)
            per_host = (ok[0].get("ranks") or 1) / n
            curve.layout = (f"{n} hosts x {per_host:g} x {ok[0].get('threads_per_rank') or 1}")
        elif ok and ok[0].get("launcher") in MPI_LAUNCHERS:
            curve.layout = f"{ok[0].get('ranks') or 1} x {ok[0].get('threads_per_rank') or 1}"
        tries: dict[tuple[int, int], list[dict]] = defaultdict(list)
        for run in system_runs:
            tries[(run["iter"], run.get("rep") or 0)].append(run)
        for (iterations, rep), group in sorted(tries.items()):
            run = best_of(group, params.kernel)
            value = throughput(run, params.kernel) if run["status"] == "ok" else None
            eff = efficiency(value, peaks.peak_for(system, run.get("cores"))) if value is not None else None
            granularity = run.get("granularity_seconds") if value is not None else None
            if disturbed(run):
                curve.disturbed_points.append((iterations, rep, run["background_load"]))
            curve.counted[(iterations, rep)] = dict(run, efficiency=eff)
            curve.reps.setdefault(rep, []).append(CurvePoint(iterations, granularity, eff, disturbed(run),
                                                             placement.tag(run.get("id"), probes, seen.labels)))
            if value is not None:
                curve.throughput.setdefault(iterations, []).append(value)
        for it, values in sorted(curve.throughput.items(), reverse=True):
            spread = relative_spread(values)
            if spread is not None and spread > POINT_SPREAD_WARNING:
                curve.noisy_points.append((it, spread))
        # An external port need not print Total Dependencies.
        deps = [r["dependencies"] / r["tasks"] for r in ok if r.get("tasks") and r.get("dependencies") is not None]
        curve.dependencies_per_task = sum(deps) / len(deps) if deps else None
        seed = metg_fit.seed_of(f"{campaign['name']}/{system}")
        curve.summary = estimate(curve.reps, params.threshold, params.metg_method, seed, full_reps=params.reps)
        if seen.changed and curve.processor == "cpu" and (cores or 1) > 1:
            per_placement(curve, params, seen.ranges, seed)
        s = curve.summary
        if s.seconds is None:
            s.unreliable += judge_missing(s.values, [it for it, _, _ in curve.disturbed_points])
        else:
            deciding = [run for (it, _), run in curve.counted.items() if it in s.deciding and run["status"] == "ok"]
            s.unreliable += judge(s, deciding, params.threshold, params.max_interval)
        curve.own_peak = peaks.own_peak(system, cores)
        curves[system] = curve
    return CampaignAnalysis(campaign, params, peaks, curves, runs)


def results_record(analysis: CampaignAnalysis) -> dict:
    """What `taskbench metg` published, per system, as the store keeps it with the campaign: a
    reader of the store (or of `taskbench export --json`) sees which METGs are not results."""
    systems = {}
    for name, curve in analysis.curves.items():
        s = curve.summary
        within = [s.within_low, s.within_high] if s.drift is not None else [s.low, s.high]
        systems[name] = {"metg_seconds": s.seconds, "interval_seconds": [s.low, s.high],
                         "within_interval_seconds": within,
                         "drift": {"tau": s.drift.tau, "df": s.drift.df, "campaigns": s.drift.campaigns,
                                   "configurations": s.drift.configurations,
                                   "prior_df": s.drift.prior_df} if s.drift else None,
                         "interval_half_width": s.half_width, "status": s.status, "method": s.method,
                         "deciding_iters": list(s.deciding), "reps_with_metg": s.found, "reps": len(s.values),
                         "added_reps": len(curve.reps) - len(s.values), "reliable": s.reliable,
                         "unreliable": list(s.unreliable), "disturbed_points": len(curve.disturbed_points),
                         "placements": [{"label": p.label, "one_way_ns": list(p.one_way_ns), "metg_seconds": p.seconds,
                                         "interval_seconds": [p.low, p.high], "runs": p.runs, "note": p.note}
                                        for p in s.placements]}
    busy = analysis.busy
    return {"threshold": analysis.params.threshold, "max_interval": analysis.params.max_interval,
            "confidence": metg_fit.CONFIDENCE,
            "background_load": analysis.background_load, "busy_machine": busy_line(busy) if busy is not None else None,
            "systems": systems}


def analyze(store, name: str) -> CampaignAnalysis:
    campaign = store.campaign(name)
    params = SweepParams.from_dict(campaign["params"])
    peaks = load_peaks(store, params.kernel, campaign["machine_id"], params.externals)
    analysis = analyze_runs(campaign, store.runs(name), peaks)
    if not params.simulation:  # a simulation is deterministic: it has no drift
        for_rerun(analysis, store.campaigns("metg"))
    return analysis


def for_rerun(analysis: CampaignAnalysis, campaigns: list[dict]) -> None:
    """Each figure's interval made the one a rerun on this machine honours (measure/metg/rerun.py):
    this campaign's repetitions and the machine's drift between the campaigns stored up to it;
    the campaign's own interval is kept as within_low/within_high (what its reliability was
    judged on, and what later campaigns measure the drift with)."""
    c = analysis.campaign
    found = rerun.history([other for other in campaigns if other["name"] != c["name"]], c["machine_id"],
                          c.get("created") or "")
    own = results_record(analysis)["systems"]
    for system, result in own.items():
        point = rerun.log_within(result)
        if point is not None:
            found.setdefault(rerun.configuration(c["params"], system), []).append(point)
    for system, curve in analysis.curves.items():
        s = curve.summary
        s.within_low, s.within_high = s.low, s.high
        s.drift = rerun.with_prior(rerun.drift(found, rerun.configuration(c["params"], system)))
        # Without its own interval (one repetition) a figure's within error is unknown: a rerun
        # interval from the drift alone would claim a precision nothing measured (and one with a
        # side it cannot place stays as it is: rerun_interval).
        if s.seconds is not None and s.status == "found" and s.low is not None and s.high is not None:
            s.low, s.high = rerun.rerun_interval(s.seconds, s.low, s.high, s.drift)


def below_floor(analysis: CampaignAnalysis) -> dict[str, float]:
    """{system: METG} of the parallel CPU systems whose METG lies below the campaign's no-runtime
    floor: a floor measurement that failed (campaign.check_floor), as no runtime beats it."""
    found = (analysis.campaign.get("machine") or {}).get("no_runtime_floor")
    if not found:
        return {}
    bound = found["metg_lower_bound_seconds"]
    return {name: c.summary.seconds for name, c in analysis.curves.items()
            if c.processor == "cpu" and not c.reference and c.summary.seconds is not None and c.summary.seconds < bound}
