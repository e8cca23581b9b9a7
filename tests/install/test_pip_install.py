"""The newcomer's path with no quick start: a fresh clone, a venv, `pip install .`, then
`pip install -e .` over it; after each, `taskbench systems` run from an empty folder shows the
built systems available and gives the others the reasons that the same build gives read as a
build folder (`--build-dir`, as a checkout reads build/), e.g. "not built: <component reason>",
and `taskbench run` runs a C++ system and a Python one.

The clone is this repository's HEAD with its uncommitted changes copied over, so the test tests
the tree in front of it. Cost: one wheel build of the whole CMake project (about a minute on 2
idle cores: CMake configure, then compiling), then the editable install reuses the clone's build
folder (pyproject.toml: build-dir = "build-pip/{wheel_tag}"): it reconfigures and rebuilds only
the binding (15 to 25 s). No build folder is kept from one run to the next: a fresh clone's files
are all newer than its objects, so every object would be rebuilt anyway, and a kept CMake cache
would skip the configure checks whose reasons the test reads. Each step's time is printed.
scripts/test.sh runs it once, in its "end-to-end and harness tests (release)" stage; leave it out
with `--ignore=tests/install`. Needs git and the package index (build and runtime dependencies).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).parent))
from library_paths import elf_files, unsafe_files  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# What would point the installed command at the checkout's build or sources instead.
LEAKS = ("PYTHONPATH", "TASKBENCH_BUILD_DIR", "TASKBENCH_SYSTEMS_DIR", "TASKBENCH_CORE_DIR", "TASKBENCH_DB",
         "VIRTUAL_ENV")


def _run(command: list, cwd: Path, timeout: float = 120) -> str:
    env = {k: v for k, v in os.environ.items() if k not in LEAKS}
    got = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert got.returncode == 0, f"{command} exited {got.returncode}:\n{got.stdout[-4000:]}\n{got.stderr[-12000:]}"
    return got.stdout


def _fresh_clone(dest: Path) -> None:
    """`git clone` of this repository, with the working tree's uncommitted changes over it."""
    _run(["git", "clone", "-q", REPO, dest], REPO)
    changed = (_run(["git", "diff", "-z", "--name-only", "HEAD"], REPO)
               + _run(["git", "ls-files", "-z", "--others", "--exclude-standard"], REPO))
    for name in filter(None, changed.split("\0")):
        source, target = REPO / name, dest / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif not source.exists():
            target.unlink(missing_ok=True)  # deleted in the working tree


def _systems(taskbench: Path, cwd: Path, *flags) -> dict[str, tuple[str, str]]:
    """`taskbench systems -q`: system -> (available, description or why not)."""
    lines = _run([taskbench, "systems", "-q", *flags], cwd).splitlines()
    header = lines[0].split("\t")
    available, why = header.index("available"), header.index("description / why not available")
    return {row[0]: (row[available], row[why]) for row in (line.split("\t") for line in lines[1:] if line)}


def _check_install(taskbench: Path, clone: Path, build: Path, cwd: Path, kind: str) -> None:
    installed = _systems(taskbench, cwd)
    assert installed, f"{kind}: taskbench systems listed nothing"
    assert installed["serial"][0] == "yes", (kind, installed["serial"])
    # The same build read as a build folder gives the same verdicts and reasons (a "binary
    # missing" one names the other folder).
    as_build_dir = _systems(taskbench, cwd, "--build-dir", build)
    def folder_left_out(row):
        return re.sub(r" not in \S+\)", ")", str(row))
    differ = {name: (row, as_build_dir.get(name)) for name, row in installed.items()
              if folder_left_out(row) != folder_left_out(as_build_dir.get(name))}
    assert not differ, f"{kind} install vs --build-dir {build}: {differ}"
    # A system whose component the build left out says why, as a checkout does.
    off = {name: c["reason"] for name, c in json.loads((build / "taskbench-build.json").read_text())["components"].items()
           if not c["enabled"]}
    for toml in sorted((clone / "systems").glob("*/system.toml")):
        for entry in tomllib.loads(toml.read_text()).get("system", []):
            if entry.get("component") in off:
                assert installed[entry["name"]] == ("no", f"not built: {off[entry['component']]}"), (kind, entry)
    for system in ("serial", "python_serial"):  # a C++ executable, and a Python system's launcher
        if installed.get(system, ("no",))[0] == "yes":
            out = _run([taskbench, "run", system, "-steps", "3", "-width", "2", "--db", cwd / f"{kind}.db", "-q"], cwd)
            assert "status\tok" in out, (kind, system, out)


def test_a_fresh_clone_installs_with_pip_and_finds_its_build(tmp_path, capsys):
    times = {}

    def step(name, command, cwd, timeout=120):
        start = time.monotonic()
        out = command() if callable(command) else _run(command, cwd, timeout)
        times[name] = time.monotonic() - start
        return out

    clone, venv, empty = tmp_path / "taskbench", tmp_path / "venv", tmp_path / "elsewhere"
    empty.mkdir()
    step("clone", lambda: _fresh_clone(clone), tmp_path)
    step("venv", [sys.executable, "-m", "venv", venv], tmp_path)
    pip = [venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "install", "-q"]
    taskbench = venv / "bin" / "taskbench"
    try:
        step("pip install . (wheel build from scratch)", [*pip, "."], clone, timeout=1800)
        (build,) = (clone / "build-pip").iterdir()
        _check_install(taskbench, clone, build, empty, "wheel")
        # The wheel's executables and extension search no relative library path (test_library_paths).
        (package,) = venv.glob("lib/python*/site-packages/taskbench")
        assert len(elf_files(package)) > 10 and unsafe_files(package) == {}
        # The harness's helpers beside bin/, not in it (launch/common.py's helper_path).
        helpers = sorted(p.name for p in (package / "libexec" / "taskbench").glob("*"))
        assert "host_agent" in helpers and [h for h in helpers if (package / "bin" / h).exists()] == [], helpers
        step("pip install -e . (same build folder)", [*pip, "-e", "."], clone, timeout=1800)
        where = step("import", [venv / "bin" / "python", "-c", "import taskbench; print(taskbench.__file__)"], empty)
        assert Path(where.strip()).is_relative_to(clone / "python"), where
        _check_install(taskbench, clone, build, empty, "editable")
        shutil.rmtree(venv)  # about 200 MB (numpy, matplotlib); kept when the test fails
    finally:
        with capsys.disabled():
            print("\nnewcomer install: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in times.items()))
