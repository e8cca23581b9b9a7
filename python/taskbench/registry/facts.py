"""The registry keys that are facts the harness's own code asks for, so that no module of it
names a system: `color`, `heavy`, `killed_worker_reason`, `not_across_hosts`, `paper_system`,
`peak_probe`, `simulates` and `studies` (docs/adding-a-system.md). Each is checked as its entry
is read; the ones that bind entries together are checked across them: a file's entries drawn
apart, one system per peak probe.

The registry owns a system's colour (its `color`, an index into PALETTE) so that a system keeps it
in every figure and every campaign, whatever else a figure shows; plots/colors.py draws with it.
A system without a `color` gets one from a hash of its name: still the same in every figure.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.registry.system import PEAK_PROBES, System

# Ten hues (Tableau 10, the light ones darkened) and a darker shade of nine of them for close
# relatives (native / native_dynamic). Every colour is a line or a marker on white, so each has a
# WCAG contrast of at least 3:1 there (tests/harness/test_report_layout.py checks it).
PALETTE = ("#1f77b4", "#d45500", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#d1439e",
           "#7f7f7f", "#8f8f00", "#0e97a6", "#08306b", "#b07800", "#116611", "#8b0a0a",
           "#5a2d91", "#4d2b1e", "#8e1a63", "#3d3d3d", "#00606b")


def color_index(name: str, color: int | None) -> int:
    """The system's index into PALETTE: its registry `color`, else one the name hashes to."""
    if color is not None:
        return color
    return zlib.crc32(name.encode()) % len(PALETTE)


def check_facts(entry: dict, where: str) -> None:
    """Refuses a fact key of one [[system]] table with the wrong type or value; `where` names
    the file and the system."""
    def refuse(key: str, what: str) -> UserError:
        return UserError(f"{where}: '{key}' {what}, not {entry[key]!r}", EXIT_ENVIRONMENT)

    color = entry.get("color")
    # bool is an int to Python, never a colour to a reader of the file.
    if color is not None and (type(color) is not int or not 0 <= color < len(PALETTE)):
        raise refuse("color", f"must be a palette index from 0 to {len(PALETTE) - 1}")
    if not isinstance(entry.get("heavy", False), bool):
        raise refuse("heavy", "must be true or false")
    reason = entry.get("killed_worker_reason", "x")
    if not isinstance(reason, str) or not reason:
        raise refuse("killed_worker_reason", "must be the words of the run's failure reason")
    missing = entry.get("not_across_hosts", "x")
    if not isinstance(missing, str) or not missing:
        raise refuse("not_across_hosts", "must say what the system lacks to run across hosts")
    if entry.get("peak_probe", PEAK_PROBES[0]) not in PEAK_PROBES:
        raise refuse("peak_probe", f"must be {', '.join(map(repr, PEAK_PROBES[:-1]))} or {PEAK_PROBES[-1]!r}")
    simulates = entry.get("simulates", "x")
    if not isinstance(simulates, str) or not simulates:
        raise refuse("simulates", "must name the system this entry is the simulated build of")
    paper = entry.get("paper_system", "")
    if not isinstance(paper, str):
        raise refuse("paper_system",
                     "must be the published data's name of a system of the paper, e.g. \"mpi_nonblock\"")
    studies = entry.get("studies", {})
    if not isinstance(studies, dict) or not all(isinstance(role, str) and role for role in studies.values()):
        raise refuse("studies", 'must be a table of study = "role", e.g. studies = { imbalance = "tasks" }')


def assign_colors(systems: list[System], path: Path) -> None:
    """Gives each entry of one file its palette index. The entries of a file are variants of one
    engine, drawn side by side: two may not ask for the same `color`, and one without a `color`
    takes the index its name hashes to, or past it the next one no entry of the file has."""
    taken: dict[int, str] = {}
    for system in systems:
        if system.color is None:
            continue
        if system.color in taken:
            raise UserError(f"{path}: systems '{taken[system.color]}' and '{system.name}' have the same 'color' "
                            f"{system.color}: the entries of one file are drawn side by side, give one of them "
                            f"another (0 to {len(PALETTE) - 1})", EXIT_ENVIRONMENT)
        taken[system.color] = system.name
    for system in systems:
        if system.color is None:
            hashed = color_index(system.name, None)
            onwards = ((hashed + step) % len(PALETTE) for step in range(len(PALETTE)))
            # More entries than colours: the last ones share theirs.
            system.color = next((index for index in onwards if index not in taken), hashed)
            taken[system.color] = system.name


def check_one_per_probe(systems: list[System]) -> None:
    """`taskbench peak` measures each peak with one system: two entries may not claim the same."""
    probes: dict[str, System] = {}
    for system in systems:
        first = probes.setdefault(system.peak_probe, system) if system.peak_probe else system
        if first is not system:
            raise UserError(f"{system.folder / 'system.toml'}: system '{system.name}' has peak_probe = "
                            f"'{system.peak_probe}', as '{first.name}' of {first.folder / 'system.toml'} has: "
                            "one system measures each peak", EXIT_ENVIRONMENT)
