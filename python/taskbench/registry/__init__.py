"""The registry: every systems/<folder>/system.toml, and whether each system can run here.

A system is never silently skipped: when it cannot run, `reason` says why (its CMake component
was off and why, its binary is missing, its launcher is not installed).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError, did_you_mean
from taskbench.launch import why_not_here
from taskbench.registry import gpu
from taskbench.registry.breakdown import parse_breakdown
from taskbench.registry.external import resolve_external
from taskbench.registry.install_hint import install_hint
from taskbench.registry.locations import Layout
from taskbench.registry.python_modules import interpreter_of, missing_modules
from taskbench.registry.system import PROCESSORS, System

__all__ = ["Registry", "System", "entry_processors", "read_registry_file", "resolve"]

_KNOWN_KEYS = {f for f in System.__dataclass_fields__} - {"folder", "extra", "available",
                                                            "reason", "binary_path", "note"}


def _parse_entry(entry: dict, folder: Path, source: Path) -> System:
    if "name" not in entry:
        raise UserError(f"{source}: a [[system]] table has no 'name'", EXIT_ENVIRONMENT)
    known = {k: v for k, v in entry.items() if k in _KNOWN_KEYS}
    extra = {k: v for k, v in entry.items() if k not in _KNOWN_KEYS}
    known.setdefault("binary", known["name"])
    known["env"] = {str(k): str(v) for k, v in (known.get("env") or {}).items()}
    args = known.get("args") or []
    if not isinstance(args, list):
        raise UserError(f"{source}: system '{entry['name']}': 'args' must be a list of strings",
                        EXIT_ENVIRONMENT)
    known["args"] = [str(a) for a in args]
    if known.get("processor", "cpu") not in PROCESSORS:
        raise UserError(f"{source}: system '{entry['name']}': 'processor' must be "
                        f"{' or '.join(map(repr, PROCESSORS))}, not {known['processor']!r}", EXIT_ENVIRONMENT)
    if known.get("external"):
        if known.get("launcher", "external") != "external":
            raise UserError(f"{source}: system '{entry['name']}': an external system has no launcher "
                            f"(it runs its command), not '{known['launcher']}'", EXIT_ENVIRONMENT)
        known["launcher"] = "external"
    if "breakdown" in known:
        known["breakdown"] = parse_breakdown(known["breakdown"], f"{source}: system '{entry['name']}'")
    return System(folder=folder, extra=extra, **known)


def read_registry_file(path: Path) -> list[System]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: cannot read the registry entry ({exc})", EXIT_ENVIRONMENT)
    # Newer entries are [[system]] arrays; an older flat file describes one system.
    entries = data.get("system")
    if isinstance(entries, dict):
        entries = [entries]
    if entries is None:
        entries = [data] if "name" in data else []
    return [_parse_entry(e, path.parent, path) for e in entries]


def _binary_reason(system: System, layout: Layout) -> str:
    components = layout.build_info.get("components", {})
    comp = components.get(system.component) if system.component else None
    if comp is not None and not comp.get("enabled", True):
        return f"not built: {comp.get('reason') or system.component + ' is off'}"
    if layout.bin_dir is None:
        return "no build found: run the CMake build, or point --build-dir / TASKBENCH_BUILD_DIR at one"
    if system.component and comp is None and layout.build_info:
        return f"not built: this build does not know the component {system.component} (re-run CMake)"
    return f"binary missing ({system.binary} not in {layout.bin_dir}), run the build"


def _why_not_here(system: System, layout: Layout) -> str:
    reason = why_not_here(system)  # the launcher's own check
    if not reason and system.processor == "gpu" and not system.standin:
        reason = gpu.cuda_device_problem()
    if reason:
        return reason
    if system.requires and system.binary_path is not None:
        interpreter = interpreter_of(system.binary_path) or sys.executable
        missing = missing_modules(interpreter, tuple(system.requires))
        if missing:
            return (f"Python module(s) {', '.join(missing)} not installed for {interpreter} "
                    f"({install_hint(missing, layout.source_root)})")
    return ""


def resolve(system: System, layout: Layout) -> System:
    """Sets available / reason / binary_path for this machine's build."""
    if system.external:
        resolve_external(system)
        return system
    binary = Path(system.binary)
    standin = gpu.standin_dir() if system.processor == "gpu" else None
    system.standin = standin is not None
    if binary.is_absolute():
        path = binary
    elif standin is not None:
        path = standin / binary
    elif layout.bin_dir is not None:
        path = layout.bin_dir / binary
    else:
        path = None
    if path is not None and path.is_file() and os.access(path, os.X_OK):
        system.binary_path = path
        system.reason = _why_not_here(system, layout)
    elif standin is not None:
        system.binary_path = None
        system.reason = f"no stand-in build ({system.binary} not in {standin}, {gpu.STANDIN_VARIABLE})"
    else:
        system.binary_path = None
        system.reason = _binary_reason(system, layout)
    system.available = not system.reason
    comp = layout.build_info.get("components", {}).get(system.component) if system.component else None
    system.note = (comp or {}).get("note", "")
    if standin is not None:
        system.note = f"on the CUDA stand-in ({gpu.STANDIN_VARIABLE}={standin}): no GPU, never a figure"
    return system


@functools.lru_cache(maxsize=None)
def entry_processors(systems_dir: Path | None) -> dict[str, str]:
    """Each registry entry's processor by name, from the files alone (nothing resolved, nothing
    probed): what a stored run of that system ran on, for keying its peak (measure/peak.py)."""
    found: dict[str, str] = {}
    if systems_dir is not None and systems_dir.is_dir():
        for path in sorted(systems_dir.glob("*/system.toml")):
            for system in read_registry_file(path):
                found.setdefault(system.name, system.processor)  # the first entry wins, as in Registry
    return found


class Registry:
    def __init__(self, layout: Layout):
        self.layout = layout
        self.systems: dict[str, System] = {}
        if layout.systems_dir is None or not layout.systems_dir.is_dir():
            return
        for path in sorted(layout.systems_dir.glob("*/system.toml")):
            for system in read_registry_file(path):
                # The first entry with a name wins; folders are read in sorted order.
                self.systems.setdefault(system.name, resolve(system, layout))

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
