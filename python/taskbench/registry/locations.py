"""Where the executables, the build description and the registry entries are.

Three layouts are supported, tried in this order:
  1. an explicit build folder: `--build-dir DIR` or TASKBENCH_BUILD_DIR (a CMake build folder
     holding taskbench-build.json and bin/, or just a folder of executables);
  2. an installed package (`pip install .` or `pip install -e .`): the folder the CMake install
     filled, found by its taskbench-build.json (bin_dir relative to it): executables in bin/,
     registry entries in systems/. After `pip install .` it is the package's folder; after
     `pip install -e .` the Python files load from the checkout and that folder is in
     site-packages, on the package's __path__ (scikit-build-core's import hook puts it there);
  3. a source checkout (`PYTHONPATH=python python -m taskbench` from the repository root):
     <repo>/build, <repo>/systems.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # taskbench/registry/locations.py -> taskbench/
# python/taskbench -> the repository root, when running from a checkout.
SOURCE_ROOT = PACKAGE_DIR.parent.parent
BUILD_INFO_NAME = "taskbench-build.json"


@dataclass
class Layout:
    """Everything the registry needs to decide whether a system can run here."""

    bin_dir: Path | None
    systems_dir: Path | None
    # taskbench-build.json as written by CMake configure; empty when none was found.
    build_info: dict = field(default_factory=dict)
    build_info_path: Path | None = None
    source_root: Path | None = None
    mode: str = "checkout"  # "build-dir" | "installed" | "checkout"
    # The folder --build-dir or TASKBENCH_BUILD_DIR named, and which of them did ("build-dir" mode).
    requested: Path | None = None
    requested_by: str = ""

    @property
    def build_dir(self) -> Path | None:
        """The build folder (what "{build}" means in registry values): where
        taskbench-build.json is, else the folder holding bin/."""
        if self.build_info_path is not None:
            return self.build_info_path.parent
        if self.bin_dir is None:
            return None
        return self.bin_dir.parent if self.bin_dir.name == "bin" else self.bin_dir

    def missing(self) -> str:
        """Why there are no executables, in words a user can act on ("" where there are some)."""
        if self.bin_dir is not None:
            return ""
        if self.requested is not None:
            what = "no such folder" if not self.requested.exists() else (
                "not a folder" if not self.requested.is_dir() else "no executables there, nor in its bin/")
            return f"{self.requested_by} {self.requested}: {what}"
        return "no build found: run the CMake build (scripts/build.sh), or give --build-dir DIR"

    def describe(self) -> str:
        where = f"executables in {self.bin_dir}" if self.bin_dir else self.missing()
        return f"{self.mode}: {where}, registry in {self.systems_dir}"


def _read_build_info(path: Path) -> dict:
    """The build description at `path`; {} where there is none."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        # A half-written or foreign file must not stop `taskbench systems` from explaining itself.
        return {}


def _from_build_dir(build_dir: Path) -> tuple[Path | None, dict, Path | None]:
    info_path = build_dir / BUILD_INFO_NAME
    info = _read_build_info(info_path)
    bin_dir = None
    # The folder may have moved since configure, so prefer <build>/bin over the recorded bin_dir.
    for candidate in (build_dir / "bin", Path(info.get("bin_dir", "")) if info else None, build_dir):
        if candidate and candidate.is_dir() and any(candidate.iterdir()):
            bin_dir = candidate
            break
    return bin_dir, info, info_path if info else None


def _installed_dir() -> Path | None:
    """The package folder the CMake install filled (layout 2), or None."""
    import taskbench
    for folder in map(Path, taskbench.__path__):
        if (folder / BUILD_INFO_NAME).is_file():
            return folder
    # An install from before the build description was installed: executables beside the package.
    return PACKAGE_DIR if (PACKAGE_DIR / "bin").is_dir() else None


def _is_checkout(root: Path) -> bool:
    return (root / "CMakeLists.txt").is_file() and (root / "systems").is_dir()


def find_layout(build_dir: str | os.PathLike | None = None) -> Layout:
    explicit = build_dir or os.environ.get("TASKBENCH_BUILD_DIR")
    source_root = SOURCE_ROOT if _is_checkout(SOURCE_ROOT) else None
    if source_root is None and _is_checkout(Path.cwd()):
        source_root = Path.cwd()
    installed_systems = PACKAGE_DIR / "systems"
    systems_dir = (source_root / "systems") if source_root else (
        installed_systems if installed_systems.is_dir() else None)
    # TASKBENCH_SYSTEMS_DIR: an extra registry folder (tests, out-of-tree systems).
    if os.environ.get("TASKBENCH_SYSTEMS_DIR"):
        systems_dir = Path(os.environ["TASKBENCH_SYSTEMS_DIR"])

    if explicit:
        path = Path(explicit).expanduser().resolve()
        bin_dir, info, info_path = _from_build_dir(path) if path.is_dir() else (None, {}, None)
        return Layout(bin_dir, systems_dir, info, info_path, source_root, "build-dir", path,
                      "--build-dir" if build_dir else "TASKBENCH_BUILD_DIR")

    installed = _installed_dir()
    if installed is not None:
        info_path = installed / BUILD_INFO_NAME
        info = _read_build_info(info_path)
        registry = installed / "systems"
        return Layout(installed / info.get("bin_dir", "bin"), registry if registry.is_dir() else systems_dir,
                      info, info_path if info else None, source_root, "installed")

    for root in filter(None, (source_root, Path.cwd())):
        bin_dir, info, info_path = _from_build_dir(root / "build")
        if bin_dir or info:
            return Layout(bin_dir, systems_dir, info, info_path, source_root, "checkout")
    return Layout(None, systems_dir, {}, None, source_root, "checkout")
