"""The core's private sources (core/src) are its own: everything else (systems, bindings,
benchmarks, tools, tests outside core/) goes through the public headers in core/include. This
is the C++ twin of the Python layer test (tests/harness/test_import_layers.py).

Two ways to reach into core/src, both found here:
- an `#include "X"` that names a file of core/src (by a path through it, or by a bare name that
  only an include directory pointing into core/src could resolve);
- a build file or script that names a path under core/src (an include directory, a source
  compiled twice), which is how the bare names above would resolve."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

C_SOURCES = {".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp"}
# Files that could add core/src to a compiler's search path or sources.
BUILD_FILES = {".txt", ".cmake", ".py", ".rs", ".sh", ".toml", ".in"}
# Not the project's sources: build trees, environments, vendored and generated files.
SKIPPED_DIRS = {".git", ".venv", "node_modules", "target", "__pycache__"}
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


@dataclass(frozen=True)
class Violation:
    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text.strip()}"


def _project_files(root: Path):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or rel.parts[0] in ("core", "docs") or rel.parts[:2] == ("tests", "source"):
            continue  # the core itself, its documentation, and this check
        if any(part in SKIPPED_DIRS or part.startswith("build") for part in rel.parts[:-1]):
            continue
        yield path


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def violations(root: Path) -> list[Violation]:
    """Every place outside core/ (docs/ and this check's folder apart) that reaches into core/src."""
    private = root / "core" / "src"
    found: list[Violation] = []
    for path in _project_files(root):
        suffix = path.suffix
        if suffix not in C_SOURCES and suffix not in BUILD_FILES and path.name != "CMakeLists.txt":
            continue
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        rel = path.relative_to(root)
        for match in re.finditer(r"core/src\b", text):
            start = text.rfind("\n", 0, match.start()) + 1
            found.append(Violation(rel, _line_of(text, match.start()), text[start:text.find("\n", match.end())]))
        if suffix not in C_SOURCES:
            continue
        for match in _INCLUDE.finditer(text):
            name = match.group(1)
            if "core/src" in name:
                continue  # reported above
            beside = path.parent / name
            if not beside.exists() and (private / name).exists():
                found.append(Violation(rel, _line_of(text, match.start()), match.group(0)))
    return found
