"""Which Python modules a Python system's interpreter lacks (registry `requires`), so that
`taskbench systems` says what to install instead of the run failing."""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys
from pathlib import Path

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
