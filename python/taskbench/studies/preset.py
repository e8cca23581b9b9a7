"""What a study preset is: a fixed grid of runs (systems x points x repetitions), a table and a
figure computed from the stored runs, and the findings to print.

Which systems a study compares, and the role each plays there, the registry says (an entry's
`studies = { imbalance = "tasks" }`), so that a study names roles, never systems, and a new
system joins a study in its own system.toml.

A preset's grid is a pure function of (systems, quick, reps): the campaign stores the grid it
ran, so a resumed study replays exactly the same runs even if the preset changes later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.reference import published
from taskbench.registry import registry_entries


def members(study: str, roles: tuple[str, ...], systems) -> list[str]:
    """The names of `systems` (registry entries, in registry order) that have a role in
    `study`: by role in the order of `roles` (the study's table order), then in registry order.
    A role the study does not know is a mistake in that entry's file."""
    by_role: dict[str, list[str]] = {role: [] for role in roles}
    for system in systems:
        role = system.studies.get(study)
        if role is None:
            continue
        if role not in by_role:
            raise UserError(f"{system.folder / 'system.toml'}: system '{system.name}': study {study} has no role "
                            f"'{role}' (its roles: {', '.join(roles)})", EXIT_ENVIRONMENT)
        by_role[role].append(system.name)
    return [name for names in by_role.values() for name in names]


def paper_systems(result) -> tuple[str, ...]:
    """The published systems a study's figure draws beside its own: the paper rows its systems run
    (registry `paper_system`), or the paper's context rows where none runs one."""
    entries = registry_entries()
    return published.study_systems(entries[s].paper_system for s in result.systems if s in entries)


def roles_in(study: str) -> dict[str, str]:
    """{system: its role in `study`} of this checkout's registry: what a stored study's table
    and findings ask, since the systems it ran are stored by name only."""
    return {name: entry.studies[study] for name, entry in registry_entries().items() if study in entry.studies}


@dataclass(frozen=True)
class GridRun:
    system: str
    point: dict  # the grid coordinates the table groups by, e.g. {"pattern": ..., "imbalance": ...}
    rep: int  # repetition: the table keeps the fastest (background load only slows a run down)
    flags: tuple[str, ...]
    breakdown: bool = False  # run the system's breakdown variant (registry `breakdown` key)
    cores: int | None = None  # cores to run on (MPI: ranks, else threads); None: the system's default
    hosts: int | None = None  # --hosts: on the first this many hosts of the description, every core

    @property
    def point_id(self) -> str:
        """The (system, point) this run measures: its key without the repetition."""
        coordinates = "/".join(f"{k}={v}" for k, v in self.point.items())
        return f"{self.system}/{coordinates}"

    @property
    def key(self) -> str:
        return f"{self.point_id}/rep={self.rep}"

    def to_dict(self) -> dict:
        return {"system": self.system, "point": dict(self.point), "rep": self.rep,
                "flags": list(self.flags), "breakdown": self.breakdown, "cores": self.cores, "hosts": self.hosts}

    @classmethod
    def from_dict(cls, data: dict) -> "GridRun":
        return cls(data["system"], dict(data["point"]), int(data["rep"]), tuple(data["flags"]),
                   bool(data.get("breakdown", False)), data.get("cores"), data.get("hosts"))


def point_key(point: dict) -> tuple:
    return tuple(sorted(point.items()))


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    paper: str  # the citation (authors, "title", venue, figure) and the finding the study checks
    # The roles its systems play (registry key `studies`), in table order: the default systems
    # are the registry's entries with one (members.py).
    roles: tuple[str, ...]
    reps: int  # default repetitions (best of)
    quick_reps: int
    breakdown: bool  # ask every system that has a `breakdown` key for it
    grid: Callable[[list[str], bool, int], list[GridRun]]  # (systems, quick, reps) -> runs
    table: Callable  # (StudyResult) -> (columns, rows)
    findings: Callable  # (StudyResult) -> list of one-line conclusions
    figure: Callable  # (StudyResult) -> matplotlib Figure or None (imports matplotlib lazily)
    # A MetgStudy whose sweeps run after the grid, in the same study campaign (scaling: METG vs
    # cores beside the weak/strong times); StudyResult.metg holds their analyses.
    metg: object | None = None
    # --hosts: (systems, quick, reps, cluster) -> the runs over 1..N of a cluster description's
    # hosts, and (quick, cluster) -> the METG part's sweeps; None: the study runs on this machine only.
    hosts_grid: Callable | None = None
    hosts_sweeps: Callable | None = None
    kind: str = field(default="grid", init=False)  # vs "metg" (studies/metg_preset.py)

    def default_systems(self, registry) -> list[str]:
        """The systems the study compares unless --systems says otherwise, in table order."""
        return members(self.name, self.roles, registry)


def rep_major(points: list[dict], systems: list[str], reps: int, flags_of: Callable[[dict], list[str]],
              breakdown: bool) -> list[GridRun]:
    """Every (system, point) once per repetition, repetition by repetition: the executor shuffles
    each repetition, so systems and points interleave and a burst of load hits them all."""
    return [GridRun(system, point, rep, tuple(flags_of(point)), breakdown)
            for rep in range(reps) for point in points for system in systems]
