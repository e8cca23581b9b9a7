"""The report's section on a campaign's traced runs (traces.py): a Gantt chart per system and
one work / overhead / idle bar per system, or the reason a system has none."""

from __future__ import annotations

import html

from taskbench import units
from taskbench.measure.system_report import breakdown_of
from taskbench.measure.trace_split import split
from taskbench.measure.traces import stored_traces


def _breakdown_shares(run: dict) -> dict | None:
    parts = breakdown_of(run)
    if parts is None:
        return None
    total = sum(parts[p] for p in ("work", "overhead", "idle", "discovery"))
    return {p: parts[p] / total for p in ("work", "overhead", "idle", "discovery")} if total > 0 else None


def trace_section(store, analysis, figures, plots_trace) -> list[str]:
    """`figures` and `plots_trace` are None without matplotlib."""
    traced = {run["system"]: (run, events) for run, events in stored_traces(store, analysis.name)}
    parts = [f"<h4>Traces at METG ({html.escape(analysis.name)})</h4>"]
    if not traced:
        return parts + ["<p class='muted'>no traced run stored: `taskbench metg` traces each system "
                        "once at its METG after the sweep (unless --no-trace); re-run it with "
                        f"`--resume {html.escape(analysis.name)}` to add them</p>"]
    missing, gantts, shares = [], [], []
    for system in analysis.curves:
        if system not in traced:
            missing.append(f"{system}: not traced (no successful run)")
            continue
        run, events = traced[system]
        if run["status"] != "ok":
            missing.append(f"{system}: the traced run failed ({run['status']}: {run.get('reason')})")
            continue
        if not events or not events.get("events"):
            missing.append(f"{system}: cannot trace (its run at -iter {run.get('iter')} wrote no task events)")
        elif figures is not None:
            gantts.append(figures.add(f"{analysis.name}_gantt_{system}", plots_trace.gantt(run, events),
                                      f"{system} at -iter {run.get('iter')} (task granularity "
                                      f"{units.seconds(run.get('granularity_seconds'))} while traced)"))
        from_breakdown = _breakdown_shares(run)
        if from_breakdown is not None:
            shares.append((system, "breakdown", from_breakdown))
        elif events and (from_trace := split(events)) is not None:
            shares.append((system, "trace", from_trace))
    parts += [f"<p class='warn'>{html.escape(line)}</p>" for line in missing]
    if figures is not None and shares:
        parts.append(figures.add(f"{analysis.name}_time_split", plots_trace.time_split(shares),
                                 "Where the workers' time goes at METG"))
        parts.append("<p class='muted'>breakdown: the system's own -breakdown / OMPT figures "
                     "(work, overhead, idle, discovery). trace: from the task events, a gap before a "
                     "task counts as idle until every task of the previous timestep has ended, and "
                     "as overhead after (an approximation: it over-counts idle when tasks have few "
                     "dependencies).</p>")
    parts.append("<div class='row'>" + "".join(gantts) + "</div>")
    return parts
