"""The package's layers import only downward, and no modules import each other in a circle.

Each subpackage of python/taskbench has one role, and the table of docs/harness.md ("The
package") says which layers each may import: this test reads that table, the one list of the
layers, and every import of the package's modules and of the systems' own Python files
(systems/*/*.py, which run in the systems' processes) with `ast`, those inside functions too, so
that a new import against the direction fails here, not in a review."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "taskbench"
TABLE_DOC = ROOT / "docs" / "harness.md"
SYSTEMS = "systems"  # the layer of systems/*/*.py
LEAF = "errors"  # imports nothing of taskbench: every layer may import it


def read_layers(text: str) -> tuple[dict[str, str], tuple[str, ...], dict[str, set[str]]]:
    """From docs/harness.md's package table: (module -> its layer, for the layers of modules named
    in bold; the subpackages, each a layer; layer -> the layers it may import, itself and LEAF
    included)."""
    section = text[text.index("## The package"):]
    table = section[section.index("| layer | role | may import |"):].split("\n\n")[0]
    rows = re.findall(r"^\| (.+?) \| .* \| (.+?) \|$", table, re.M)[1:]  # the header left out
    modules, subpackages, allowed = {}, [], {}
    for layer_cell, may_import in rows:
        named = re.match(r"\*\*(\w+)\*\*: (.+)", layer_cell)
        if named:
            layer = named.group(1)
            for module in re.findall(r"`([\w.]+)`", named.group(2)):
                module = module.removesuffix(".py")
                modules["taskbench" if module == "__init__" else f"taskbench.{module}"] = layer
        else:
            folder = re.fullmatch(r"`([\w/*]+)/`", layer_cell).group(1)
            layer = SYSTEMS if folder == "systems/*" else folder
            if layer != SYSTEMS:
                subpackages.append(layer)
        allowed[layer] = {layer, LEAF, *re.findall(r"`(\w+)`", may_import)}
    return modules, tuple(subpackages), allowed


MODULE_LAYERS, SUBPACKAGES, ALLOWED = read_layers(TABLE_DOC.read_text())


def module_name(path: Path) -> str:
    if path.is_relative_to(ROOT / "systems"):  # systems.FOLDER.FILE: outside the package
        return ".".join(path.relative_to(ROOT).with_suffix("").parts)
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    if module in MODULE_LAYERS:
        return MODULE_LAYERS[module]
    parts = module.split(".")
    if parts[0] == SYSTEMS:
        return SYSTEMS
    if len(parts) >= 2 and parts[1] in SUBPACKAGES:
        return parts[1]
    raise AssertionError(f"{module}: in no layer (add it to the package table of docs/harness.md)")


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
SYSTEM_FILES = {module_name(p): p for p in sorted((ROOT / "systems").glob("*/*.py"))}
CHECKED = {**MODULES, **SYSTEM_FILES}


def test_the_table_names_every_layer_it_allows():
    assert {"errors", "base", "core", "engine", "clusters", "launch", "commands", SYSTEMS} <= set(ALLOWED)
    for layer, allowed in ALLOWED.items():
        assert allowed <= set(ALLOWED), f"{layer} may import {sorted(allowed - set(ALLOWED))}: no such layer"
    assert ALLOWED[SYSTEMS] == {SYSTEMS, LEAF, "core", "engine", "clusters", "hosts"}
    assert ALLOWED[LEAF] == {LEAF}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(CHECKED))
def test_imports_go_downward(module):
    layer = layer_of(module)
    wrong = sorted(f"{target} ({layer_of(target)})" for target in imports_of(CHECKED[module], False)
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


def test_a_systems_file_may_not_import_the_launchers(tmp_path):
    # The systems' processes import the clusters and hosts, never launch/ (its __init__ loads
    # every launcher) nor the harness above it.
    bad = tmp_path / "main.py"
    bad.write_text("from taskbench.launch.dask import command\nfrom taskbench.clusters.dask import DaskCluster\n")
    found = imports_of(bad, top_level_only=False)
    assert found == {"taskbench.launch.dask", "taskbench.clusters.dask"}
    assert [layer_of(m) in ALLOWED[SYSTEMS] for m in sorted(found)] == [True, False]


def test_the_check_sees_a_wrong_import(tmp_path):
    # The checker itself: a store module importing the runner is reported.
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from taskbench.launch.runner import run_once\n")
    assert "taskbench.launch.runner" in imports_of(bad, top_level_only=False)
    assert layer_of("taskbench.launch.runner") not in ALLOWED["store"]
