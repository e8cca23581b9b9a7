"""The report's section on a campaign's traced runs (traces.py): a Gantt chart per system and
one work / overhead / idle bar per system, or the reason a system has none (as notes, which the
report says once however many campaigns share them)."""

from __future__ import annotations

from taskbench import units
from taskbench.measure.system_report import BREAKDOWN_PARTS, breakdown_of
from taskbench.measure.trace_split import WINDOW_STEPS, split, window
from taskbench.measure.traces import stored_traces
from taskbench.report.page import Note

NO_TRACE = ("no traced run stored: `taskbench metg` traces each system once at its METG after the sweep "
            "(not with --no-trace, nor in a study's sweeps); `taskbench metg --resume CAMPAIGN` adds the traces")
# How to read the time-split bars: the page keeps its first copy only.
TIME_SPLIT_HELP = ("<p class='muted'>breakdown: the system's own -breakdown / OMPT figures (work, overhead, idle, "
                   "discovery). trace: from the task events, a gap before a task counts as idle until every "
                   "task of the previous timestep has ended, and as overhead after (an approximation: it "
                   "over-counts idle when tasks have few dependencies).</p>")


# The runtime's own idle share and the task events' further apart than this: the page says why.
IDLE_DISAGREEMENT = 0.2


def _idle_differs(from_breakdown: dict, from_trace: dict, events: dict) -> str:
    """Why the time-split bar (the runtime's own account) and the timeline disagree on idle."""
    shown, _ = window(events["events"], WINDOW_STEPS)
    in_window = split({**events, "events": shown})
    return (f"its time-split bar is its runtime's own account, {from_breakdown['idle']:.0%} idle; its task events "
            f"say {from_trace['idle']:.0%} idle over the whole run"
            + (f" and {in_window['idle']:.0%} in the timeline's window" if in_window else "")
            + ": the runtime counts every moment a worker holds no task (waiting to be woken, polling, start-up "
              "and wind-down), the events only the gaps between tasks, and the timeline shows a few steady "
              "timesteps")


def _breakdown_shares(run: dict) -> dict | None:
    parts = breakdown_of(run)
    if parts is None:
        return None
    total = sum(parts[p] for p in BREAKDOWN_PARTS)
    return {p: parts[p] / total for p in BREAKDOWN_PARTS} if total > 0 else None


def trace_section(store, analysis, figures, plots_trace, shown_as: str, level: int,
                  stamp: str | None = None) -> tuple[list[str], list[Note]]:
    """The section (headed <h{level}>) and its notes, which name the campaign `shown_as`.
    `figures` and `plots_trace` are None without matplotlib; `stamp`: what the figures are drawn
    from (figure_cache.campaign_stamp), to reuse them."""
    traced = {run["system"]: (run, events) for run, events in stored_traces(store, analysis.name)}
    if not traced:
        return [], [Note("muted", NO_TRACE, shown_as)]
    parts = [f"<h{level}>Traces at METG</h{level}>"]
    notes, gantts, shares = [], [], []
    for system in analysis.curves:
        if system not in traced:
            notes.append(Note("warn", "not traced (no successful run)", shown_as, system))
            continue
        run, events = traced[system]
        if run["status"] != "ok":
            failed = f"the traced run failed ({run['status']}: {run.get('reason')})"
            notes.append(Note("warn", failed, shown_as, system))
            continue
        if not events or not events.get("events"):
            notes.append(Note("warn", f"cannot trace (its run at -iter {run.get('iter')} wrote no task events)",
                              shown_as, system))
        elif figures is not None:
            gantts.append(figures.add(f"{analysis.name}_gantt_{system}",
                                      lambda run=run, events=events: plots_trace.gantt(run, events),
                                      f"{system} at -iter {run.get('iter')} (task granularity "
                                      f"{units.seconds(run.get('granularity_seconds'))} while traced)", stamp))
        from_breakdown = _breakdown_shares(run)
        from_trace = split(events) if events and events.get("events") else None
        if from_breakdown is not None:
            shares.append((system, "breakdown", from_breakdown))
            if from_trace is not None and abs(from_breakdown["idle"] - from_trace["idle"]) > IDLE_DISAGREEMENT:
                notes.append(Note("muted", _idle_differs(from_breakdown, from_trace, events), shown_as, system))
        elif from_trace is not None:
            shares.append((system, "trace", from_trace))
    if figures is not None and shares:
        parts.append(figures.add(f"{analysis.name}_time_split", lambda: plots_trace.time_split(shares),
                                 "Where the workers' time goes at METG", stamp))
        parts.append(TIME_SPLIT_HELP)
    if gantts:
        parts.append("<div class='row'>" + "".join(gantts) + "</div>")
    return parts, notes
