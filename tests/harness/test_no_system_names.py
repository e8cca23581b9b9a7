"""The harness's code names no system: what it needs to know of one (its colour, whether its
start-up is heavy, how its engine reports a killed worker, which peak it measures, its role in
a study) is a key of its registry entry, so that adding a system is its folder alone.

Every string in python/taskbench outside registry/ is read (docstrings aside: prose may give a
system as an example), and a word of it that is a registry system's name fails this test. A
word is what stands between spaces and the punctuation of prose; "taskbench[spark]" or
"org.apache.spark" are an engine's own names, not a system's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from harness_helpers import REPO

from taskbench.registry import read_entries

PACKAGE = REPO / "python" / "taskbench"
ALLOWED = PACKAGE / "registry"  # the registry reads the names; nothing else may know one
WORD_BREAKS = re.compile(r"[\s,;()'\"`]+")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def named_systems(path: Path, names: set[str]) -> list[str]:
    """'LINE: NAME' for each system name that a string of the file holds as a word."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            words = {word.rstrip(":.") for word in WORD_BREAKS.split(node.value)}
            found += [f"{node.lineno}: {name}" for name in sorted(words & names)]
    return found


def test_no_module_outside_the_registry_names_a_system():
    names = set(read_entries(REPO / "systems"))
    assert len(names) > 40  # the whole registry was read
    named = {str(path.relative_to(PACKAGE)): hits for path in sorted(PACKAGE.rglob("*.py"))
             if ALLOWED not in path.parents and (hits := named_systems(path, names))}
    assert not named, f"system names in the harness's code (make them registry keys): {named}"


def test_the_check_sees_a_name(tmp_path):
    code = tmp_path / "code.py"
    code.write_text('"""The native system, as prose."""\n'
                    'BASELINE = "native"\n'
                    'MESSAGE = f"{x} compared with native: slower"\n'
                    'ENGINE = "org.apache.spark.deploy"\n')
    assert named_systems(code, {"native", "spark"}) == ["2: native", "3: native"]
