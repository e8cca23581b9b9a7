"""Turns a run's outcome (taskbench.launch.runner.RunOutcome, or anything with its fields) into
the row the store keeps: figures plus full provenance."""

from __future__ import annotations

import os

from taskbench import provenance


def flag_value(flags: list[str], name: str) -> str | None:
    """The value of the first graph's `name` flag (flags after -and describe other graphs)."""
    for i, flag in enumerate(flags):
        if flag == "-and":
            break
        if flag == name and i + 1 < len(flags):
            return flags[i + 1]
    return None


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def graph_fields(flags: list[str], report: dict | None) -> dict:
    """Pattern, kernel and shape of the first graph: from the report, else from the flags."""
    graphs = (report or {}).get("graphs") or []
    if graphs:
        g = graphs[0]
        return {"pattern": g.get("pattern"), "kernel": (g.get("kernel") or {}).get("type"),
                "iter": (g.get("kernel") or {}).get("iterations"), "steps": g.get("timesteps"),
                "width": g.get("max_width"), "radix": g.get("radix")}
    return {"pattern": flag_value(flags, "-type") or "trivial",
            "kernel": flag_value(flags, "-kernel") or "empty",
            "iter": _int(flag_value(flags, "-iter")) or 0,
            "steps": _int(flag_value(flags, "-steps")), "width": _int(flag_value(flags, "-width")),
            "radix": _int(flag_value(flags, "-radix"))}


def make_record(outcome, *, campaign: str, key: str, system, flags: list[str],
                rep: int | None, git_revision: str | None) -> dict:
    report = outcome.report or {}
    harness_machine = provenance.machine()
    machine = dict(harness_machine)
    machine.update({f"report_{k}": v for k, v in (report.get("machine") or {}).items()})
    machine_id = provenance.machine_id(harness_machine)
    if outcome.hosts is not None:  # across hosts: theirs, and the peak of them all busy
        machine["hosts"] = list(outcome.hosts)
        machine_id = provenance.cluster_id(outcome.hosts)
    taskbench = report.get("taskbench") or {}
    system_info = report.get("system") or {}
    m = outcome.metrics
    # What the child saw: the harness's own relevant variables overridden by what it set.
    env = provenance.relevant_env({**os.environ, **outcome.set_env})
    record = {
        "campaign": campaign, "key": key, "system": system.name,
        "system_version": system_info.get("version"), "launcher": system.launcher, "rep": rep,
        "flags": flags, "argv": outcome.argv, "env": env, "ranks": outcome.ranks,
        "threads_per_rank": (report.get("parallelism") or {}).get("threads_per_rank")
        or outcome.threads_per_rank,
        "status": outcome.status, "reason": outcome.reason, "exit_code": outcome.exit_code,
        "wall_seconds": outcome.wall_seconds, "background_load": outcome.background_load,
        "background_cpu_seconds": outcome.background_cpu_seconds,
        "machine_id": machine_id, "machine": machine,
        "compiler": system_info.get("compiler") or taskbench.get("core_compiler"),
        "build_flags": taskbench.get("build_flags"), "git_revision": git_revision,
        "started_at": outcome.started_at, "load_average": provenance.load_average(),
        "stdout_tail": outcome.stdout_tail if not outcome.ok else outcome.stdout_tail[-1000:],
        "stderr_tail": outcome.stderr_tail, "report": outcome.report,
    }
    record.update(graph_fields(flags, outcome.report))
    for column in ("tasks", "dependencies", "flops", "bytes", "nodes", "elapsed_seconds",
                   "flops_per_second", "bytes_per_second", "granularity_seconds", "cores"):
        record[column] = m.get(column)
    if record["cores"] is None:
        record["cores"] = _cores_of(system, outcome)
    return record


def _cores_of(system, outcome) -> int:
    """Cores a failed run would have used (it wrote no report): from the registry entry."""
    if isinstance(system.cores, int):
        return system.cores * (outcome.ranks or 1)
    threads = outcome.threads_per_rank or provenance.available_cores()
    return (outcome.ranks or 1) * threads if system.is_mpi else threads
