"""Installs the harness's Python dependencies (pyproject.toml) that are missing, and pytest:
the project's dependencies, every optional group, and what the build needs (nanobind for
taskbench._core: the CMake build in this venv finds it here)."""
import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

root = Path(__file__).resolve().parents[1]
wanted = ["pytest"]
pyproject = root / "pyproject.toml"
if pyproject.exists():
    document = tomllib.loads(pyproject.read_text())
    wanted += [r for r in document.get("build-system", {}).get("requires", [])]
    project = document.get("project", {})
    wanted += project.get("dependencies", [])
    for extra in project.get("optional-dependencies", {}).values():
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
