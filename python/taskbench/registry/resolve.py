"""Whether a registry entry can run on this machine, and why not: its binary in this build (or
on the CUDA stand-in), its launcher, its GPU, the Python modules it imports.

A system is never silently skipped: when it cannot run, `reason` says why (its CMake component
was off and why, its binary is missing, its launcher is not installed).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from taskbench.launch import why_not_here
from taskbench.registry import gpu
from taskbench.registry.external import resolve_external
from taskbench.registry.install_hint import install_hint
from taskbench.registry.locations import Layout
from taskbench.registry.system import System


# Which Python modules a Python system's interpreter lacks (registry `requires`), so that
# `taskbench systems` says what to install instead of the run failing.
_CHECK = ("import importlib.util, sys\n"
          "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))")


def interpreter_of(launcher: Path) -> str | None:
    """The interpreter on a launcher's #! line (the build writes the Python systems' launchers)."""
    try:
        with open(launcher, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
    except OSError:
        return None
    return first[2:].split()[0] if first.startswith("#!") and len(first) > 2 else None


@functools.lru_cache(maxsize=None)
def missing_modules(interpreter: str, modules: tuple[str, ...]) -> tuple[str, ...]:
    if Path(interpreter) == Path(sys.executable):
        return tuple(m for m in modules if importlib.util.find_spec(m) is None)
    try:
        out = subprocess.run([interpreter, "-c", _CHECK, *modules], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return tuple(f"{m} (cannot run {interpreter}: {exc})" for m in modules)
    return tuple(out.stdout.split()) if out.returncode == 0 else modules


def _component(system: System, layout: Layout) -> dict | None:
    """What the build says of the system's CMake component (enabled, why not, a note), if anything."""
    return layout.build_info.get("components", {}).get(system.component) if system.component else None


def _binary_reason(system: System, layout: Layout) -> str:
    comp = _component(system, layout)
    if comp is not None and not comp.get("enabled", True):
        return f"not built: {comp.get('reason') or system.component + ' is off'}"
    if layout.bin_dir is None:
        return layout.missing()
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
    system.note = (_component(system, layout) or {}).get("note", "")
    if standin is not None:
        system.note = f"on the CUDA stand-in ({gpu.STANDIN_VARIABLE}={standin}): no GPU, never a figure"
    return system
