"""A study campaign's stored runs, grouped by (system, point), best of the repetitions."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from taskbench.studies import metg_results
from taskbench.studies.preset import GridRun, point_key, roles_in


def fastest(runs: list[dict]) -> dict | None:
    """The run that counts for a point: the fastest successful one (background load only slows a
    run down), else the first failure, else None (not run yet)."""
    ok = [r for r in runs if r.get("status") == "ok" and r.get("elapsed_seconds") is not None]
    if ok:
        return min(ok, key=lambda r: r["elapsed_seconds"])
    return runs[0] if runs else None


@dataclass
class StudyResult:
    campaign: dict
    grid: list[GridRun]
    runs: list[dict]
    unavailable: dict[str, str] = field(default_factory=dict)  # system -> why it did not run
    no_breakdown: dict[str, str] = field(default_factory=dict)  # system -> why it ran without one
    metg: object | None = None  # the MetgStudyResult of the study's METG sweeps, if it has some (scaling)

    @property
    def name(self) -> str:
        return self.campaign["name"]

    @property
    def systems(self) -> list[str]:
        """Every requested system, in the order asked, available or not."""
        return list(self.campaign["params"]["systems"])

    @functools.cached_property
    def roles(self) -> dict[str, str]:
        """{system: its role in this study} (registry key `studies`), whether it ran or not."""
        return roles_in(self.campaign["params"]["study"])

    def member(self, role: str) -> str | None:
        """The registry's first system with `role` in this study (the one the others are
        compared with), requested or not, or None."""
        return next((system for system, its in self.roles.items() if its == role), None)

    def requested(self, role: str) -> list[str]:
        """The requested systems with `role` in this study, in the order asked."""
        return [system for system in self.systems if self.roles.get(system) == role]

    def points(self) -> list[dict]:
        """The grid's points, each once, in grid order."""
        return list({point_key(run.point): run.point for run in self.grid}.values())

    def axis(self, coordinate: str) -> list:
        """The values one coordinate of the grid's points takes (every -iter, say), sorted."""
        return sorted({point[coordinate] for point in self.points()})

    @functools.cached_property
    def _tries(self) -> dict[tuple, list[dict]]:
        """Every stored run of each (system, point): the grid's repetitions and the extra tries
        of noisy points (execute.py), which share the point's key up to "/rep="."""
        by_point = {p.point_id: (p.system, point_key(p.point)) for p in self.grid}
        tries: dict[tuple, list[dict]] = {}
        for run in self.runs:
            where = by_point.get(run["key"].rsplit("/rep=", 1)[0])
            if where is not None:
                tries.setdefault(where, []).append(run)
        return tries

    def best(self, system: str, point: dict) -> dict | None:
        return fastest(self._tries.get((system, point_key(point)), []))


def load(store, name: str):
    """A study campaign's result: a StudyResult, or a MetgStudyResult for a METG study."""
    campaign = store.campaign(name)
    params = campaign["params"]
    if "grid" not in params:
        return metg_results.load(store, name)
    return StudyResult(campaign, [GridRun.from_dict(d) for d in params["grid"]], store.runs(name),
                       dict(params.get("unavailable") or {}), dict(params.get("no_breakdown") or {}),
                       metg_results.load(store, name) if "sweeps" in params else None)


def cell(run: dict | None) -> str | None:
    """Why a point has no figure ("failed: ...", "not run yet"), or None when it has one."""
    if run is None:
        return "not run yet"
    if run["status"] != "ok":
        return f"{run['status']}: {run.get('reason') or ''}".rstrip(": ")
    return None
