"""One traced run per system at the granularity nearest its METG, stored with the campaign.

After a METG sweep the harness runs each system once more with `-trace FILE` at the problem
size whose task granularity is nearest the system's METG (or, without a METG, at its most
efficient size), and keeps the task events in the store's `traces` table. The traced run is a
run of the campaign with a `trace/` key: tracing costs time, so the METG analysis leaves it out.
Where the system's registry entry has a `breakdown`, the traced run asks for it as well.

The core writes the Chrome trace format: one "X" event per task with pid (the rank; 0 for a
one-process system), tid (the worker) and args graph / t / i. An MPI run writes FILE for rank 0
and FILE.rankN for the others, each with its own time origin (its first task).
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
from pathlib import Path

from taskbench.launch import LaunchOptions
from taskbench.launch.runner import run_once
from taskbench.measure.metg.methods import by_size
from taskbench.registry.breakdown import why_no_breakdown, with_breakdown
from taskbench.store.records import make_record

KEY_PREFIX = "trace/"
# Above this many task events the stored trace keeps the earliest ones (the Gantt shows a window).
MAX_EVENTS = 200_000


def is_trace_run(run: dict) -> bool:
    return str(run.get("key", "")).startswith(KEY_PREFIX)


def trace_key(system: str, iterations: int) -> str:
    return f"{KEY_PREFIX}{system}/iter={iterations}"


def size_near_metg(curve) -> tuple[int | None, str]:
    """The -iter to trace for one system's curve, and why that one."""
    sizes = by_size(curve.reps)
    if not sizes:
        return None, "no successful run to trace"
    metg = curve.summary.seconds if curve.summary else None
    if metg:
        it = min(sizes, key=lambda i: abs(math.log(statistics.median(p.granularity for p in sizes[i]) / metg)))
        return it, "the size nearest its METG"
    it = max(sizes, key=lambda i: statistics.median(p.efficiency for p in sizes[i]))
    return it, "no METG: its most efficient size"


def read_trace(path: Path) -> dict | None:
    """The events of FILE and of any FILE.rankN beside it, in the store's compact form; None
    when the run wrote no trace."""
    files = [path, *sorted(path.parent.glob(path.name + ".rank*"))] if path.is_file() else []
    workers: dict[tuple, int] = {}
    events = []
    for f in files:
        try:
            data = json.loads(f.read_text())
        except ValueError:
            continue
        for e in data.get("traceEvents", []):
            if e.get("ph") != "X":
                continue
            args = e.get("args") or {}
            w = workers.setdefault((e.get("pid", 0), e.get("tid", 0)), len(workers))
            events.append([w, args.get("graph", 0), args.get("t", 0), args.get("i", 0),
                           round(float(e["ts"]), 3), round(float(e["dur"]), 3)])
    if not files:
        return None
    events.sort(key=lambda e: e[4])
    return {"workers": [list(k) for k in workers], "events": events[:MAX_EVENTS],
            "truncated": len(events) > MAX_EVENTS, "files": len(files)}


def trace_campaign(store, registry, name: str, params, analysis, console, git_revision) -> None:
    """The traced run of every system of a finished METG campaign (kept when already stored)."""
    build = registry.layout.build_dir
    for system_name, curve in analysis.curves.items():
        iterations, why = size_near_metg(curve)
        if iterations is None:
            console.warn(f"{system_name}: no traced run ({why})")
            continue
        key = trace_key(system_name, iterations)
        if store.get_run(name, key) is not None:
            continue
        system = registry.require_available(system_name)
        # On this machine: --launcher picks an MPI system's launcher only (another's srun steps
        # need the sweep's hosts, which a traced run does not span).
        options = LaunchOptions(ranks=params.ranks, threads_per_rank=params.threads_per_rank,
                                launcher=params.launcher if system.is_mpi else None)
        if not why_no_breakdown(system, build):
            system = with_breakdown(system, build, registry)
        with tempfile.TemporaryDirectory(prefix="taskbench-trace-") as tmp:
            flags = [*params.flags(iterations), "-trace", str(Path(tmp) / "trace.json")]
            outcome = run_once(system, flags, options, params.timeout)
            run = store.add_run(make_record(outcome, campaign=name, key=key, system=system,
                                            flags=flags, rep=None, git_revision=git_revision))
            events = read_trace(Path(tmp) / "trace.json") if outcome.ok else None
        if events is not None:
            store.add_trace(run["id"], events)
        console.note(f"{system_name}: traced at -iter {iterations} ({why})"
                     + ("" if events else f": no trace ({outcome.reason or 'the system wrote none'})"))


def stored_traces(store, name: str) -> list[tuple[dict, dict | None]]:
    """(run, events or None) of the campaign's traced runs, the latest per system."""
    latest: dict[str, dict] = {}
    for run in store.runs(name):
        if is_trace_run(run):
            latest[run["system"]] = run
    return [(run, store.trace(run["id"])) for run in latest.values()]
