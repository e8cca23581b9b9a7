"""Installs the harness's Python dependencies (pyproject.toml) that are missing, and pytest:
the project's dependencies, every optional group but the large engines', and what the build
needs (nanobind for taskbench._core: the CMake build in this venv finds it here).

`--large` installs only the large engines' groups (LARGE_GROUPS: Spark, TensorFlow, Legion), which
scripts/install-large-engines.sh does in the one test stage that needs them."""
import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

root = Path(__file__).resolve().parents[1]
# Hundreds of MB each: a default install and the build never need them.
LARGE_GROUPS = ("spark", "tensorflow", "legion")
large = "--large" in sys.argv[1:]
wanted = [] if large else ["pytest"]
pyproject = root / "pyproject.toml"
if pyproject.exists():
    document = tomllib.loads(pyproject.read_text())
    project = document.get("project", {})
    if not large:
        wanted += [r for r in document.get("build-system", {}).get("requires", [])]
        wanted += project.get("dependencies", [])
    for group, extra in project.get("optional-dependencies", {}).items():
        if (group in LARGE_GROUPS) == large:
            wanted += extra


from pip._vendor.packaging.requirements import Requirement  # pip ships it; nothing to install


def needed(requirement: str) -> bool:
    req = Requirement(requirement)
    if req.marker is not None and not req.marker.evaluate():
        return False
    try:
        return importlib.metadata.version(req.name) not in req.specifier
    except importlib.metadata.PackageNotFoundError:
        return True


missing = [r for r in wanted if needed(r)]
if missing:
    print("install-deps: pip installing " + " ".join(missing), flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
