"""Figures that systems add to their JSON report under `system_report` (beyond docs/spec.md §5).

  breakdown  native -breakdown, or the OMPT tool in an LLVM OpenMP binary:
             {"seconds": {"elapsed", "work", "overhead", "idle", "discovery"},
              "ns_per_task": {"work", "overhead", "idle", "discovery"}, "tasks": N, "threads": [...]}
  discovery  openmp_task: {"seconds": S, "tasks": N}, the creating thread's time in task creation.
"""

from __future__ import annotations

from dataclasses import dataclass

BREAKDOWN_PARTS = ("work", "overhead", "idle", "discovery")


@dataclass(frozen=True)
class Discovery:
    seconds: float
    tasks: int
    source: str  # which system_report key it came from

    @property
    def ns_per_task(self) -> float:
        return 1e9 * self.seconds / self.tasks


def _system_report(run: dict) -> dict:
    report = run.get("report") or {}
    return report.get("system_report") or {} if isinstance(report, dict) else {}


def hosts_of(run: dict) -> dict[str, dict] | None:
    """{host: {"ranks" or "workers": N, "tasks": N}} of a run across hosts (the system's report
    names the host each rank or worker ran on), or None where the report has no such count."""
    hosts = _system_report(run).get("hosts")
    if not isinstance(hosts, dict) or not all(isinstance(v, dict) for v in hosts.values()):
        return None
    return hosts


def breakdown_of(run: dict) -> dict | None:
    """ns per task of each part, plus "tasks", or None when the run's report has no breakdown."""
    b = _system_report(run).get("breakdown")
    if not isinstance(b, dict) or not isinstance(b.get("ns_per_task"), dict):
        return None
    per_task = b["ns_per_task"]
    if any(not isinstance(per_task.get(p), (int, float)) for p in BREAKDOWN_PARTS):
        return None
    return {**{p: float(per_task[p]) for p in BREAKDOWN_PARTS}, "tasks": b.get("tasks")}


def discovery_of(run: dict) -> Discovery | None:
    """The run's task-creation time: the system's own `discovery` figure first (measured the same
    way by the GCC and LLVM builds of one source), else the breakdown's discovery."""
    sr = _system_report(run)
    own = sr.get("discovery")
    if isinstance(own, dict) and isinstance(own.get("seconds"), (int, float)) and own.get("tasks"):
        return Discovery(float(own["seconds"]), int(own["tasks"]), "discovery")
    b = sr.get("breakdown")
    if isinstance(b, dict) and isinstance((b.get("seconds") or {}).get("discovery"), (int, float)) \
            and b.get("tasks"):
        return Discovery(float(b["seconds"]["discovery"]), int(b["tasks"]), "breakdown")
    return None
