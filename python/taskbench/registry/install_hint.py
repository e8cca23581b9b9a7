"""What installs a Python system's missing modules, derived from the project's own files.

The module's group is the pyproject.toml optional-dependencies group named after it or holding a
requirement of its name (`pyspark` in `spark`, `tensorflow` for `tensorflow-cpu`); an installed
package has the same groups in its metadata (Requires-Dist ...; extra == "group"). In a checkout,
scripts/install-python-deps.py's LARGE_GROUPS are installed by scripts/install-large-engines.sh,
every other group by scripts/install-deps.sh; anywhere, pip installs the group's requirements.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEPS_SCRIPT = "scripts/install-deps.sh"
LARGE_SCRIPT = "scripts/install-large-engines.sh"
GROUPS_SCRIPT = "scripts/install-python-deps.py"  # where LARGE_GROUPS is declared


def optional_groups(source_root: Path | None) -> dict[str, list[str]]:
    """pyproject.toml's optional-dependencies: the checkout's, else the installed package's."""
    pyproject = source_root / "pyproject.toml" if source_root else None
    if pyproject is not None and pyproject.is_file():
        project = tomllib.loads(pyproject.read_text()).get("project", {})
        return {g: list(reqs) for g, reqs in project.get("optional-dependencies", {}).items()}
    try:
        requires = importlib.metadata.requires("taskbench") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    groups: dict[str, list[str]] = {}
    for requirement in requires:
        spec, _, marker = requirement.partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if extra:
            groups.setdefault(extra.group(1), []).append(spec.strip())
    return groups


def large_groups(source_root: Path | None) -> tuple[str, ...]:
    """LARGE_GROUPS of the checkout's scripts/install-python-deps.py (none outside a checkout)."""
    script = source_root / GROUPS_SCRIPT if source_root else None
    if script is None or not script.is_file():
        return ()
    for node in ast.parse(script.read_text(), str(script)).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LARGE_GROUPS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise ValueError(f"{script}: no LARGE_GROUPS = (...) assignment (the install hint reads it)")


def _project(requirement: str) -> str:
    """The normalized project name of a requirement ("tensorflow-cpu>=2.16" -> "tensorflow-cpu")."""
    return re.split(r"[\s<>=!~;\[(@]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def group_of(module: str, groups: dict[str, list[str]]) -> str | None:
    name = module.lower().replace("_", "-")
    exact = [g for g, reqs in groups.items() if any(_project(r) == name for r in reqs)]
    named = [g for g, reqs in groups.items()
             if g == name or any(_project(r).startswith(name + "-") for r in reqs)]
    return (exact or named or [None])[0]


def install_hint(missing: tuple[str, ...], source_root: Path | None) -> str:
    """E.g. "scripts/install-large-engines.sh, or pip install 'pyspark>=4.0'"."""
    groups = optional_groups(source_root)
    found = {m: group_of(m, groups) for m in missing}
    needed = list(dict.fromkeys(g for g in found.values() if g))
    large = large_groups(source_root)
    scripts = [s for s in dict.fromkeys(LARGE_SCRIPT if g in large else DEPS_SCRIPT for g in needed)
               if source_root is not None and (source_root / s).is_file()]
    packages = [r for g in needed for r in groups[g]]
    packages += [m for m, g in found.items() if g is None]
    return ", or ".join(scripts + ["pip install " + " ".join(shlex.quote(p) for p in packages)])
