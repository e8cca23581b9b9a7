"""Every systems/*/system.toml by system name: as the files say (`read_entries`, and cached for
the facts the harness looks up without a Registry: `registry_entries`), or resolved for this
machine (`Registry`, what the commands use)."""

from __future__ import annotations

import functools
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError, did_you_mean
from taskbench.registry import gpu
from taskbench.registry.entry import read_registry_file
from taskbench.registry.facts import check_one_per_probe
from taskbench.registry.locations import Layout, find_layout
from taskbench.registry.resolve import resolve
from taskbench.registry.system import System


def read_entries(systems_dir: Path | None) -> dict[str, System]:
    """Every entry by name, nothing resolved or probed; new objects at every call."""
    found: dict[str, System] = {}
    if systems_dir is not None and systems_dir.is_dir():
        for path in sorted(systems_dir.glob("*/system.toml")):
            for system in read_registry_file(path):
                # The first entry with a name wins; folders are read in sorted order.
                found.setdefault(system.name, system)
    check_one_per_probe(list(found.values()))
    return found


@functools.lru_cache(maxsize=None)
def _cached_entries(systems_dir: Path | None) -> dict[str, System]:
    return read_entries(systems_dir)


def registry_entries() -> dict[str, System]:
    """This checkout's (or installation's) entries, read once: for the facts a figure or a stored
    result needs (a colour, a study role, a processor), which no Registry is at hand for.
    Shared between callers: read them, never change them."""
    return _cached_entries(find_layout().systems_dir)


def entry_processors(systems_dir: Path | None) -> dict[str, str]:
    """Each registry entry's processor by name, from the files alone: what a stored run of that
    system ran on, for keying its peak (measure/peak/table.py)."""
    return {name: system.processor for name, system in _cached_entries(systems_dir).items()}


class Registry:
    def __init__(self, layout: Layout):
        self.layout = layout
        self.systems: dict[str, System] = {name: resolve(system, layout)
                                           for name, system in read_entries(layout.systems_dir).items()}

    def __iter__(self):
        return iter(self.systems.values())

    def get(self, name: str) -> System:
        if name not in self.systems:
            if not self.systems:
                raise UserError(f"unknown system '{name}': no registry found (systems/*/system.toml)", EXIT_USAGE)
            raise UserError(f"unknown system '{name}'{did_you_mean(name, self.systems)} (`taskbench systems` lists "
                            f"the {len(self.systems)} known ones)", EXIT_USAGE)
        return self.systems[name]

    def require_available(self, name: str, figures: bool = True) -> System:
        """The system, if it can run here; `figures`: for a command that measures (a METG, a
        peak, a study), which a GPU system on the CUDA stand-in cannot serve."""
        system = self.get(name)
        if not system.available:
            raise UserError(f"system '{name}' is not available: {system.reason}", EXIT_ENVIRONMENT)
        if figures and system.standin:
            raise UserError(f"system '{name}' runs on the CUDA stand-in ({gpu.STANDIN_VARIABLE} is set), which "
                            "measures nothing: unset it to measure on a GPU", EXIT_ENVIRONMENT)
        return system

    def defaults(self) -> list[System]:
        return [s for s in self if s.default]

    def peak_probe(self, probe: str) -> System | None:
        """The system whose `peak_probe` is `probe` (registry/system.py PEAK_PROBES), or None."""
        return next((s for s in self if s.peak_probe == probe), None)
