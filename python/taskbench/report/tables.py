"""The result tables, as (columns, rows) of strings: printed by the CLI, rendered in the HTML."""

from __future__ import annotations

import ipaddress

from taskbench import units
from taskbench.console import NOTES, Fit
from taskbench.measure.placement import floor_failed_line
from taskbench.measure.kernels import unit
from taskbench.measure.system_report import BREAKDOWN_PARTS, breakdown_of
from taskbench.reference import published


def metg_table(analysis, numeric: bool = False) -> tuple[list[str], list[list]]:
    """One row per system: METG with its 95% interval, the interval's half-width, repetitions,
    best efficiency, peak, failures.

    An unreliable METG says so in its cell and first in its notes (with why); numeric=True
    gives raw seconds (for -q / TSV consumers) instead of formatted figures, the interval in
    columns of its own, then this campaign's own interval (campaign low/high: the one to compare
    two systems of the campaign with, measure/metg/methods.py campaign_interval), the METG column staying
    a number and the notes, last, carrying "UNRELIABLE".
    """
    p = analysis.params
    label = metg_label(p.threshold)
    columns = (["system", "cores", label, "interval low", "interval high", "±", "reps", "added reps",
                "best efficiency", "peak", "failed runs", "campaign low", "campaign high", NOTES] if numeric else
               ["system", "cores", f"{label} (95% interval)", "±", "reps", "best efficiency", "peak", "failed runs",
                NOTES])
    rows = []
    for name, curve in analysis.curves.items():
        s = curve.summary
        best = max((pt.efficiency for pts in curve.reps.values() for pt in pts if pt.ok), default=None)
        notes = system_notes(curve, p)
        reps = f"{len(s.values)} + {len(curve.reps) - len(s.values)}" if len(curve.reps) > len(s.values) \
            else str(len(s.values))
        if numeric:
            rows.append([name, curve.cores, s.seconds, s.low, s.high, s.half_width, len(s.values),
                         len(curve.reps) - len(s.values), best, curve.peak, len(curve.failures),
                         *s.campaign_interval, " | ".join(notes)])
        else:
            rows.append([name, curve.cores_text, s.text + s.mark, s.half_width_text, reps, units.percent(best),
                         units.rate(curve.peak, unit(p.kernel)), len(curve.failures), "; ".join(notes)])
    return columns, rows


def system_notes(curve, params) -> list[str]:
    """What a row's notes say: why it is unreliable first, then the rest. A simulated campaign
    runs once by design: the simulation gives the same figure every time (docs/simulation.md)."""
    kernel, simulated = params.kernel, getattr(params, "simulation", None) is not None
    s = curve.summary
    notes = [w for w in s.warnings if w not in s.unreliable]
    if s.seconds is None:
        notes.insert(0, s.text_status)
    elif s.low is None:
        notes.insert(0, "no interval: one repetition of a deterministic simulation" if simulated
                     else "no interval: one repetition")
    if s.unreliable:
        notes.insert(0, f"UNRELIABLE: {'; '.join(s.unreliable)}")
    if s.placements and not s.unreliable:
        notes.append("; ".join(pl.text for pl in s.placements))
    if len(curve.reps) > len(s.values):
        notes.append(f"{units.count(len(curve.reps) - len(s.values), 'repetition')} of the sizes around the "
                     "crossing added")
    if curve.disturbed_points:
        notes.append(f"{units.count(len(curve.disturbed_points), 'size')} disturbed in every try "
                     f"(other processes used up to {max(b for _, _, b in curve.disturbed_points):.2f} cores)")
    if curve.own_peak is not None:
        notes.append(own_peak_note(curve.own_peak, kernel))
    if curve.noisy_points:
        notes.append(units.count(len(curve.noisy_points), "noisy size"))
    if curve.failures:
        reasons = sorted({f"{r['status']}: {r['reason']}" for r in curve.failures})
        notes.append("failures: " + "; ".join(reasons[:2]) + (" ..." if len(reasons) > 2 else ""))
    return notes


def notes_below_table(analysis) -> list[str]:
    """Which run defined each 100% and the campaign's no-runtime floor: read with the table."""
    rate = unit(analysis.params.kernel)
    # A GPU's peaks count task slots (docs/gpu.md), after the CPU's; only the core counts the
    # campaign's systems ran on (a stored one-core peak is no 100% of a campaign without serial).
    used = {(c.processor, c.cores) for c in analysis.curves.values()}
    lines = [f"peak with {units.count(count, noun)}: {units.rate(info['peak'], rate)}, from the {info['source']}"
             for processor, noun in (("cpu", "core"), ("gpu", "GPU slot"))
             for count, info in analysis.peaks.describe(processor).items() if (processor, count) in used]
    return (lines + [line for line in [floor_line(analysis)] if line] + hosts_lines(analysis)
            + simulated_lines(analysis) + drift_lines(analysis))


def drift_lines(analysis) -> list[str]:
    """What the intervals hold for (measure/metg/rerun.py): a rerun here, with the drift between
    campaigns they include (this machine's as measured, weighed with this project's VMs')."""
    if getattr(analysis.params, "simulation", None):
        return []
    drifts = {name: c.summary.drift for name, c in analysis.curves.items()
              if c.summary.seconds is not None and c.summary.drift is not None}
    told = {d.describe() for d in drifts.values()}
    if not told:
        return []
    if len(told) == 1:
        return [f"intervals hold for a rerun here: {told.pop()}"]
    return ["intervals hold for a rerun here: " + "; ".join(f"{name} {d.describe()}" for name, d in drifts.items())]


def simulated_lines(analysis) -> list[str]:
    """On a simulated platform: that its figures are simulated seconds, on what."""
    simulation = getattr(analysis.params, "simulation", None)
    if not simulation:
        return []
    platform = simulation.platform
    return [f"SIMULATED: every figure is simulated time on {units.count(simulation.nodes, 'node')} of platform "
            f"{platform.name} ({platform.cores_per_node} cores each, "
            f"{units.rate(platform.core_flops, 'FLOP/s')} a core), not measured here (docs/simulation.md)"]


# The range the test cluster's hosts take (scripts/test-cluster.sh): one machine's cores, shared.
TEST_HOSTS = ipaddress.ip_network("198.18.0.0/15")


def hosts_lines(analysis) -> list[str]:
    """Across hosts: each system's processes and tasks per host (of its largest run), and a
    warning where the hosts are the test cluster's, whose figures say nothing of a network."""
    cluster = getattr(analysis.params, "cluster", None)
    if not cluster:
        return []
    lines = [f"{c.system} per host (processes / tasks): "
             f"{per_host(c.hosts) if c.hosts else 'not reported by the system'}" for c in analysis.curves.values()]
    try:
        test_cluster = all(ipaddress.ip_address(h.address) in TEST_HOSTS for h in cluster.hosts)
    except ValueError:
        test_cluster = False
    if test_cluster:
        lines.append(f"the {len(cluster)} hosts are the test cluster's (198.18.0.0/15): network namespaces "
                     "sharing this machine's cores and a software bridge, so these figures say nothing of a real "
                     "network (`taskbench predict` reasons about large node counts)")
    return lines


def against_nodes_table(platform: str, results, reference: str | None, registry,
                        quiet: bool) -> tuple[str, list[str], list[list]]:
    """(title, columns, rows) of `taskbench metg --simulate`: METG per node count and system
    (`results`: (nodes, analysis, wall seconds) per node count); with --reference, the paper's
    figure of the paper row the system runs (registry `paper_system`) at each node count and the
    simulated one's ratio to it."""
    figures = units.Figures(quiet)
    # The wall time is the one the note above the table said (the whole sweep, started to shown),
    # never the sum of its runs' own times, which leaves out the harness between them.
    columns = ["nodes", "system", "simulated METG", "95% interval", "wall time to simulate"]
    if reference:
        columns += ["paper row", published.LABEL, "simulated / published"]
    rows = []
    for nodes, analysis, wall in results:
        for system, curve in analysis.curves.items():
            s = curve.summary
            if s.low is None:
                interval = f"none: deterministic ({units.count(analysis.params.reps, 'repetition')})"
            else:
                interval = f"{s.low}-{s.high}" if quiet else units.seconds_interval(s.seconds, s.low, s.high)
            row = [nodes, system, figures.seconds(s.seconds) if s.seconds is not None else s.text_status + s.mark,
                   interval, figures.seconds(wall)]
            if reference:
                paper_system = registry.get(system).paper_system
                paper = published.metg_by_nodes(paper_system, analysis.params.pattern,
                                                analysis.params.graphs).get(nodes) if paper_system else None
                ratio = s.seconds / paper if paper and s.seconds else None
                row += [published.label_of(paper_system) if paper_system else "none (not a paper port)",
                        figures.seconds(paper) if paper else "not published",
                        (ratio if quiet else f"{ratio:.2f}x") if ratio else ""]
            rows.append(row)
    title = (f"Simulated METG({results[0][1].params.threshold:.0%}) against nodes, platform {platform} "
             "(SimGrid SMPI: simulated times, not measured)")
    return title, columns, rows


def per_host(hosts: dict) -> str:
    """"node1 2/64, node2 2/64": each host's processes (ranks or workers) / tasks."""
    return ", ".join(f"{name} {h.get('ranks', h.get('workers'))}/{h.get('tasks')}" for name, h in sorted(hosts.items()))


def answer(analysis) -> list[str]:
    """The campaign's answer, first: which parallel system has the smallest METG (where there
    are several), whether the intervals tell it from the next, and where it stands to the
    no-runtime floor; then the one-core references apart, and a floor that failed. One sentence
    each. No ratio is drawn from an unreliable METG (as `compare` refuses one), and a ratio drawn
    from an upper bound ("or less") says which way it is a bound."""
    label = metg_label(analysis.params.threshold)
    bound = floor_bound(analysis)
    contenders = [c for c in analysis.curves.values() if not c.reference]
    parallel = sorted((c for c in contenders if c.summary.seconds is not None), key=lambda c: c.summary.seconds)
    lines = []
    if parallel:
        first = parallel[0]
        fs = first.summary
        text = (f"{first.system} has the smallest {label} of the parallel systems: {fs.text}{fs.mark}"
                if len(contenders) > 1 else f"{first.system}'s {label} is {fs.text}{fs.mark}")
        if len(parallel) > 1:
            text += _against(fs, parallel[1])
        if bound and first.processor == "cpu" and not fs.unreliable:
            text += f", {_at_most(fs)}{fs.seconds / bound:.1f}x the no-runtime floor ({units.seconds(bound)})"
        lines.append(text + ".")
        if first.summary.unreliable:
            lines.append(f"{UNRELIABLE_ANSWER}: {'; '.join(first.summary.unreliable)}.")
    elif any(not c.reference for c in analysis.curves.values()):
        lines.append(f"No parallel system has a {label} here (see the table's notes).")
    for curve in analysis.curves.values():
        if curve.reference and curve.summary.seconds is not None:
            lines.append(f"{curve.system} runs on one core, the reference without parallelism: its "
                         f"{curve.summary.text} is not comparable with the parallel systems'.")
    found = _floor(analysis)
    if found.get("failed"):
        line = floor_failed_line(found)
        lines.append(f"{line[:1].upper()}{line[1:]}.")
    return lines


# How the answer's line on why its figure is unreliable begins (the report prints it as a warning).
UNRELIABLE_ANSWER = "That figure is unreliable"


def _at_most(summary) -> str:
    """"at most " before a ratio over this METG where it is an upper bound, else ""."""
    return units.ratio_bound(summary.bound, False)


def _against(first, second_curve) -> str:
    """The smallest METG against the next one: B/A with whether the intervals tell them apart,
    or why no ratio is drawn (an unreliable figure; two upper bounds)."""
    ss, name = second_curve.summary, second_curve.system
    if first.unreliable or ss.unreliable:
        return f"; {name}'s is {ss.text}{ss.mark} (no ratio drawn from an unreliable figure)"
    which = units.ratio_bound(ss.bound, first.bound)
    if which is None:
        return f"; {name}'s is {ss.text} (both upper bounds: no ratio)"
    apart = "" if differ(first, ss) else " (their intervals in this campaign overlap: not told apart)"
    return f", {which}{ss.seconds / first.seconds:.2f}x below {name}'s {ss.text}{apart}"


def differ(a, b) -> bool:
    """Whether two METGs of one campaign are told apart: their 95% intervals in this campaign
    (campaign_interval: the drift between campaigns moves both) do not overlap (a METG without an
    interval is told apart from nothing)."""
    (al, ah), (bl, bh) = a.campaign_interval, b.campaign_interval
    if None in (al, ah, bl, bh):
        return False
    return ah < bl or bh < al


def _floor(analysis) -> dict:
    """The campaign's no-runtime floor as measured (measure/placement.py); {} where none was."""
    return (analysis.campaign.get("machine") or {}).get("no_runtime_floor") or {}


def floor_bound(analysis) -> float | None:
    """The campaign's floor bound to read METGs against, or None: none measured, or its
    measurement failed (campaign.check_floor)."""
    found = _floor(analysis)
    if not found or found.get("failed"):
        return None
    return found["metg_lower_bound_seconds"]


def floor_line(analysis) -> str | None:
    """The campaign's no-runtime floor and each METG as a multiple of it."""
    found = _floor(analysis)
    if not found:
        return None
    # The floor is pinned CPU threads exchanging rows: a bound for CPU systems only.
    cpu_curves = {name: curve for name, curve in analysis.curves.items() if curve.processor == "cpu"}
    if analysis.curves and not cpu_curves:
        return None
    if found.get("failed"):
        return f"no-runtime floor: {floor_failed_line(found)}"
    bound = found["metg_lower_bound_seconds"]
    # A one-core system exchanges nothing: the floor is not its bound.
    ratios = [f"{name} {_at_most(curve.summary)}{curve.summary.seconds / bound:.1f}x{curve.summary.mark}"
              for name, curve in cpu_curves.items()
              if curve.summary is not None and curve.summary.seconds is not None and (curve.cores or 1) > 1]
    interval = found.get("metg_lower_bound_interval") or [None, None]
    probes = f", the lowest of {units.count(found['probes'], 'probe')}" if found.get("probes") else ""
    per_placement = "".join(f"; {label}: {units.seconds(f['metg_lower_bound_seconds'])}"
                            for label, f in (found.get("placements") or {}).items() if f)
    return (f"no-runtime floor: METG(50%) {units.seconds_interval(bound, *interval)} at width {found['width']} "
            f"({found['workers']} pinned threads, {found['no_runtime_row_ns']:.0f} ns per row{probes}){per_placement}"
            + (f"; METG / floor: {', '.join(ratios)}" if ratios else ""))


def metg_label(threshold: float) -> str:
    return f"METG({threshold:.0%})"


def metg_fit(threshold: float, reps: int = 3) -> Fit:
    """metg_table on a terminal: short headers (campaign_title gives the threshold). When the
    table cannot fit, the peak goes first, then the half-width (the interval says it), then
    the failed runs (the notes name them, but a count of failures is what a reader looks for
    first)."""
    return Fit(short={f"{metg_label(threshold)} (95% interval)": "METG (95%)", "best efficiency": "eff.",
                      "failed runs": "failed"},
               optional=("peak", "±", "failed runs"), keyed_by="system")


def own_peak_note(own, kernel: str) -> str:
    """Why an external system's efficiency is not against the machine's peak."""
    return (f"external: efficiency vs its own best {units.rate(own.own, unit(kernel))}, "
            f"{own.factor:.1f}x below the machine peak with our kernel (another kernel family)")


def failures_table(analyses) -> tuple[list[str], list[list]]:
    columns = ["campaign", "system", "-iter", "rep", "status", "reason"]
    rows = []
    for a in analyses:
        for curve in a.curves.values():
            for r in curve.failures:
                rows.append([a.name, r["system"], r.get("iter"), r.get("rep"), r["status"], r["reason"]])
    return columns, rows


def campaign_title(analysis, status: str | None = None) -> str:
    """status: the campaign's as a reader sees it (Store.status: interrupted where no process
    runs it any more); by default the stored one."""
    p = analysis.params
    radix = f", radix {p.radix}" if p.radix is not None else ""
    background = analysis.background_load
    noise = f", background load {background:.2f} cores" if background is not None else ""
    if getattr(analysis, "busy", None) is not None:
        noise = f", BUSY MACHINE ({analysis.busy:.2f} cores of other processes on average)"
    unfinished = status_note(status or analysis.campaign.get("status"))
    unfinished = f" ({unfinished})" if unfinished else ""
    hosts = f", across {len(p.cluster)} hosts" if getattr(p, "cluster", None) else ""
    simulation = getattr(p, "simulation", None)
    if simulation:
        hosts = f", SIMULATED: {units.count(simulation.nodes, 'node')} of platform {simulation.platform.name}"
    return (f"{analysis.name}: {p.pattern}{radix}, {p.kernel}, {units.count(p.steps, 'step')} x {p.width} wide"
            f"{hosts}, {units.count(p.reps, 'rep')}, threshold {p.threshold:.0%}, {definition(p)}{noise}{unfinished}")


def status_note(status: str) -> str:
    """What a METG campaign's status says beside its figures: "" once done."""
    if status == "done":
        return ""
    if status == "interrupted":
        return "interrupted: `taskbench metg --resume` continues it"
    return f"{status}: its figures are those of the runs made so far"


def definition(params) -> str:
    """Which METG the figures are (--metg-method), said wherever they are shown."""
    method = getattr(params, "metg_method", "fit")
    if method == "paper":
        return "METG the paper's way (the mean of the repetitions per size, then one METG)"
    if method == "median":
        return "METG the median of the repetitions' own"
    return "METG one monotone fit of every run, 95% interval over repetitions"


def breakdown_table(runs: list[dict]) -> tuple[list[str], list[list]]:
    """ns per task of work, overhead, idle and discovery for every run whose report has a
    breakdown: the fastest run per (campaign, system, graph), systems of one graph on adjacent
    rows so that native and OpenMP read side by side."""
    best: dict[tuple, tuple[dict, dict]] = {}
    for run in runs:
        parts = breakdown_of(run)
        if parts is None or run.get("elapsed_seconds") is None:
            continue
        key = (run.get("pattern") or "", run.get("steps") or 0, run.get("width") or 0,
               run.get("iter") or 0, run["campaign"], run["system"])
        if key not in best or run["elapsed_seconds"] < best[key][0]["elapsed_seconds"]:
            best[key] = (run, parts)
    columns = ["graph", "-iter", "campaign", "system", "tasks", *(f"{p} ns/task" for p in BREAKDOWN_PARTS)]
    rows = [[f"{pattern}, {steps} x {width}", it, campaign, system, parts["tasks"],
             *(f"{parts[p]:.1f}" for p in BREAKDOWN_PARTS)]
            for (pattern, steps, width, it, campaign, system), (_, parts) in sorted(best.items())]
    return columns, rows
