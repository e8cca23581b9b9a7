"""One systems/<folder>/system.toml read into System entries: every key the harness knows is
checked (a wrong one is one line naming the file); keys it does not know are kept and ignored,
so that an entry written for a newer harness still reads."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.registry.breakdown import parse_breakdown
from taskbench.registry.facts import assign_colors, check_facts
from taskbench.registry.system import PROCESSORS, System

_KNOWN_KEYS = {f for f in System.__dataclass_fields__} - {"folder", "extra", "available",
                                                            "reason", "binary_path", "note"}


def _parse_entry(entry: dict, folder: Path, source: Path) -> System:
    if "name" not in entry:
        raise UserError(f"{source}: a [[system]] table has no 'name'", EXIT_ENVIRONMENT)
    known = {k: v for k, v in entry.items() if k in _KNOWN_KEYS}
    extra = {k: v for k, v in entry.items() if k not in _KNOWN_KEYS}
    where = f"{source}: system '{entry['name']}'"
    if "paper_row" in entry:  # the key's old name, whose labels claimed rows the ports did not run
        raise UserError(f"{where}: 'paper_row' is now 'paper_system': the published data's name of the paper's "
                        "system whose algorithm the entry runs, or nothing (docs/paper-ports.md)", EXIT_ENVIRONMENT)
    known.setdefault("binary", known["name"])
    known["env"] = {str(k): str(v) for k, v in (known.get("env") or {}).items()}
    args = known.get("args") or []
    if not isinstance(args, list):
        raise UserError(f"{where}: 'args' must be a list of strings", EXIT_ENVIRONMENT)
    known["args"] = [str(a) for a in args]
    if known.get("processor", "cpu") not in PROCESSORS:
        raise UserError(f"{where}: 'processor' must be {' or '.join(map(repr, PROCESSORS))}, "
                        f"not {known['processor']!r}", EXIT_ENVIRONMENT)
    check_facts(known, where)
    if known.get("external"):
        if known.get("launcher", "external") != "external":
            raise UserError(f"{where}: an external system has no launcher (it runs its command), "
                            f"not '{known['launcher']}'", EXIT_ENVIRONMENT)
        known["launcher"] = "external"
    if "breakdown" in known:
        known["breakdown"] = parse_breakdown(known["breakdown"], where)
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
    systems = [_parse_entry(e, path.parent, path) for e in entries]
    assign_colors(systems, path)
    return systems
