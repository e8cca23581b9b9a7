"""The package's layers import only downward, and no modules import each other in a circle.

Each subpackage of python/taskbench has one role (docs/harness.md, "The package"); this test
reads every module's imports (those inside functions too) with `ast`, so a new import against
the direction fails here, not in a review."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "taskbench"

# Top-level modules that are not a subpackage, by layer.
MODULE_LAYERS = {"taskbench": "base", "taskbench.errors": "base", "taskbench.units": "base",
                 "taskbench.console": "base", "taskbench.provenance": "base", "taskbench.paths": "base",
                 "taskbench._core": "core", "taskbench.context": "context",
                 "taskbench.cli": "top", "taskbench.faults": "top", "taskbench.__main__": "top"}
SUBPACKAGES = ("engine", "process", "hosts", "clusters", "launch", "registry", "store", "reference", "measure", "check", "plots", "studies", "report",
               "commands")
HARNESS = {"base", "process", "hosts", "launch", "registry", "store", "reference", "measure", "check", "plots", "studies", "report", "context"}
# What each layer may import (besides the standard library and third-party packages).
ALLOWED = {
    "base": {"base"},
    # The systems import the engine side in their own (worker) processes: the binding only.
    "engine": {"engine", "core"},
    "process": {"base", "process"},
    "hosts": {"base", "hosts"},
    # What a starter and a system's own process import: never the launchers (launch/__init__.py
    # loads them all).
    "clusters": {"base", "process", "hosts", "clusters"},
    "launch": {"base", "process", "hosts", "launch"},  # systems are passed in: never the registry, never the store
    "registry": {"base", "registry", "process", "hosts", "launch"},  # through the launcher table's why_not_here
    "store": {"base", "store"},  # a run's outcome comes in as data: never the runner
    "reference": {"base", "reference"},  # published data, read and reduced: nothing measured here
    "measure": {"base", "measure", "process", "hosts", "launch", "registry", "store", "reference"},
    "check": {"base", "check", "launch", "registry", "store", "measure"},
    "plots": {"base", "plots", "measure", "registry"},  # a system's colour is a registry fact
    "studies": {"base", "studies", "measure", "process", "hosts", "launch", "registry", "store", "plots", "reference"},
    "report": {"base", "report", "measure", "store", "plots", "studies", "registry", "reference"},
    "context": {"base", "context", "registry", "store"},
    "commands": HARNESS | {"commands"},
    "top": HARNESS | {"commands", "top", "core"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    if module in MODULE_LAYERS:
        return MODULE_LAYERS[module]
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in SUBPACKAGES:
        return parts[1]
    raise AssertionError(f"{module}: in no layer (add it to MODULE_LAYERS or a subpackage)")


def is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    return (PACKAGE.parent / relative).with_suffix(".py").is_file() or \
        (PACKAGE.parent / relative / "__init__.py").is_file() or name == "taskbench._core"


def imports_of(path: Path, top_level_only: bool) -> set[str]:
    """The taskbench modules a file imports ('from taskbench.x import y' names y when y is a
    module, else x)."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "taskbench"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                node.module.split(".")[0] == "taskbench":
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if is_module(child) else node.module)
    return found


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_downward(module):
    layer = layer_of(module)
    wrong = sorted(f"{target} ({layer_of(target)})" for target in imports_of(MODULES[module], False)
                   if layer_of(target) not in ALLOWED[layer])
    assert not wrong, f"{module} ({layer}) may import only {sorted(ALLOWED[layer])}, imports {wrong}"


def import_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """The first circle of imports in `graph` (module -> the modules it imports), or None."""
    state: dict[str, str] = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target, path + [target])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_no_import_circles():
    # Imports inside functions count: one there only defers the circle to the first call (as
    # launch/hosts.py's lazy import of launch/slurm_hosts.py, which imported it, once did).
    graph = {m: imports_of(p, top_level_only=False) & set(MODULES) for m, p in MODULES.items()}
    circle = import_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle)


def test_the_check_sees_a_circle_through_an_import_inside_a_function(tmp_path):
    describes, builds = tmp_path / "describes.py", tmp_path / "builds.py"
    describes.write_text("def cluster_from():\n    from taskbench.hosts import slurm\n")
    builds.write_text("from taskbench.hosts.description import Cluster\n")
    graph = {"taskbench.hosts.description": imports_of(describes, top_level_only=False),
             "taskbench.hosts.slurm": imports_of(builds, top_level_only=False)}
    assert import_circle(graph) == ["taskbench.hosts.description", "taskbench.hosts.slurm",
                                    "taskbench.hosts.description"]
    assert import_circle({"a": {"b"}, "b": set()}) is None


def test_the_check_sees_a_wrong_import(tmp_path):
    # The checker itself: a store module importing the runner is reported.
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from taskbench.launch.runner import run_once\n")
    assert "taskbench.launch.runner" in imports_of(bad, top_level_only=False)
    assert layer_of("taskbench.launch.runner") not in ALLOWED["store"]
