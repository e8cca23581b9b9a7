"""Work / overhead / idle of a traced run, from its task events (traces.py's compact form).

Over the run's span (first task start to last task end) every worker's time is
  work      inside a task;
  overhead  outside tasks while the next task it ran could already have started;
  idle      outside tasks while that task still waited for its inputs.
A trace says when tasks ran, not when their inputs were ready, so readiness is approximated by
the timestep: a task of timestep t counts as ready once every task of timestep t-1 (same graph)
has ended. For patterns with few dependencies that over-counts idle; the figure says so.
"""

from __future__ import annotations

from collections import defaultdict

from taskbench import units

PARTS = ("work", "overhead", "idle")
# Timesteps a Gantt chart shows at most: more and the tasks are too thin to see.
WINDOW_STEPS = 8


def window(events: list, steps: int) -> tuple[list, str]:
    """The events of a few timesteps from the middle of the run (its steady state), and a note."""
    first, last = min(e[2] for e in events), max(e[2] for e in events)
    if last - first + 1 <= steps:
        return events, f"all {units.count(last - first + 1, 'timestep')}"
    lo = (first + last + 1 - steps) // 2
    shown = [e for e in events if lo <= e[2] < lo + steps]
    return shown, f"timesteps {lo}–{lo + steps - 1} of {first}–{last} (a window)"


def split(trace: dict) -> dict[str, float] | None:
    """Fractions of the workers' total time in each part (summing to 1), or None without events."""
    events = trace.get("events") or []
    if not events:
        return None
    begin = min(e[4] for e in events)
    end = max(e[4] + e[5] for e in events)
    step_end: dict[tuple, float] = defaultdict(lambda: begin)
    for _, graph, t, _, start, dur in events:
        step_end[(graph, t)] = max(step_end[(graph, t)], start + dur)
    per_worker: dict[int, list] = defaultdict(list)
    for e in events:
        per_worker[e[0]].append(e)
    totals = dict.fromkeys(PARTS, 0.0)
    for worker_events in per_worker.values():
        cursor = begin
        for _, graph, t, _, start, dur in sorted(worker_events, key=lambda e: e[4]):
            gap = start - cursor
            if gap > 0:
                ready = step_end[(graph, t - 1)] if t > 0 else begin
                waiting = min(max(ready - cursor, 0.0), gap)
                totals["idle"] += waiting
                totals["overhead"] += gap - waiting
            totals["work"] += dur
            cursor = max(cursor, start + dur)
        totals["idle"] += max(end - cursor, 0.0)
    whole = sum(totals.values())
    return {k: v / whole for k, v in totals.items()} if whole > 0 else None
