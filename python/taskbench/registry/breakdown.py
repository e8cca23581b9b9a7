"""Asking a system for its work / overhead / idle / discovery breakdown.

A registry entry says how with its `breakdown` key, a table of
  args      flags added after the entry's own `args` (native: ["-breakdown"]);
  env       variables added to the entry's `env` (LLVM OpenMP: OMP_TOOL_LIBRARIES, the OMPT tool);
  requires  files that must exist for the breakdown to work (the OMPT tool library).
In every value "{build}" stands for the build folder (Layout.build_dir). The system then writes
`system_report.breakdown` into its JSON report (see system_report.py).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError

BUILD_PLACEHOLDER = "{build}"
_KEYS = ("args", "env", "requires")


def parse_breakdown(value, where: str) -> dict:
    """The registry's `breakdown` table, checked: {"args": [...], "env": {...}, "requires": [...]}."""
    def bad(what: str) -> UserError:
        return UserError(f"{where}: 'breakdown' {what}", EXIT_ENVIRONMENT)

    if not isinstance(value, dict):
        raise bad("must be a table, e.g. breakdown = { args = [\"-breakdown\"] }")
    unknown = sorted(set(value) - set(_KEYS))
    if unknown:
        raise bad(f"has unknown keys {', '.join(unknown)} (known: {', '.join(_KEYS)})")
    args, env, requires = value.get("args", []), value.get("env", {}), value.get("requires", [])
    if not isinstance(args, list) or not isinstance(requires, list):
        raise bad("'args' and 'requires' must be lists of strings")
    if not isinstance(env, dict):
        raise bad("'env' must be a table of variables")
    if not (args or env):
        raise bad("needs 'args' or 'env': otherwise a breakdown run is a plain run")
    return {"args": [str(a) for a in args], "env": {str(k): str(v) for k, v in env.items()},
            "requires": [str(r) for r in requires]}


def _substitute(value: str, build: Path | None, system_name: str) -> str:
    if BUILD_PLACEHOLDER not in value:
        return value
    if build is None:
        raise UserError(f"the breakdown of '{system_name}' needs the build folder ({value}), and no "
                        "build was found: run the build, or give --build-dir", EXIT_ENVIRONMENT)
    return value.replace(BUILD_PLACEHOLDER, str(build))


def why_no_breakdown(system, build: Path | None) -> str:
    """Why this system cannot give a breakdown here ("" when it can)."""
    if system.breakdown is None:
        return (f"{system.name} reports no work / overhead / idle breakdown (taskbench has no tool for "
                "its runtime): its runs show their times only")
    try:
        missing = [p for p in (_substitute(r, build, system.name) for r in system.breakdown["requires"])
                   if not Path(p).exists()]
    except UserError as exc:
        return str(exc)
    if missing:
        return f"the breakdown of '{system.name}' needs {', '.join(missing)}, which is missing"
    return ""


def with_breakdown(system, build: Path | None, registry_systems=()):
    """A copy of `system` whose runs report a breakdown; a clear error when it cannot."""
    if system.breakdown is None:
        able = ", ".join(s.name for s in registry_systems if s.breakdown is not None) or "none"
        raise UserError(f"system '{system.name}' cannot report a breakdown: its registry entry has "
                        f"no 'breakdown' key (systems with one: {able})", EXIT_USAGE)
    reason = why_no_breakdown(system, build)
    if reason:
        raise UserError(reason, EXIT_ENVIRONMENT)
    extra_env = {k: _substitute(v, build, system.name) for k, v in system.breakdown["env"].items()}
    extra_args = [_substitute(a, build, system.name) for a in system.breakdown["args"]]
    return dataclasses.replace(system, args=[*system.args, *extra_args], env={**system.env, **extra_env})
