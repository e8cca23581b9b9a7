"""Shared fixtures: the repository layout, the built executables, and running the CLI.

Tests that run real systems need build/bin (or TASKBENCH_BUILD_DIR); they are skipped with the
reason when it is missing, never failed for it.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from harness_helpers import REPO

sys.path.insert(0, str(REPO / "python"))

from taskbench.cli import main  # noqa: E402
from taskbench.registry.locations import find_layout  # noqa: E402


def _bin_dir() -> Path | None:
    return find_layout().bin_dir


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    path = _bin_dir()
    needed = ("serial", "openmp_for")
    if path is None or not all((path / n).is_file() for n in needed):
        pytest.skip("build/bin with serial and openmp_for is missing: run "
                    "`cmake -S . -B build -G Ninja && ninja -C build` first")
    return path


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """Runs `taskbench ARGS` in-process against a fresh database; returns (exit code, out, err)."""
    db = tmp_path / "tb.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TASKBENCH_FAULT", raising=False)

    def run(*args: str):
        capsys.readouterr()
        code = main(["--db", str(db), *args])
        out, err = capsys.readouterr()
        return code, out, err

    run.db = db
    return run


@pytest.fixture
def fake_systems(tmp_path, monkeypatch, bin_dir):
    """A registry folder with the real serial plus systems that fail on purpose."""
    root = tmp_path / "systems"
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    sleepy = scripts / "sleepy.sh"
    sleepy.write_text("#!/bin/sh\nsleep 30\n")
    crashy = scripts / "crashy.sh"
    crashy.write_text("#!/bin/sh\necho 'about to crash' >&2\nkill -SEGV $$\n")
    for script in (sleepy, crashy):
        script.chmod(0o755)
    entries = {
        "serial": 'name = "serial"\nbinary = "serial"\ncores = 1\ndefault = true\n',
        "faulty": textwrap.dedent("""\
            name = "faulty"
            binary = "serial"
            cores = 1
            env = { TASKBENCH_FAULT = "corrupt:0,2,1" }
            """),
        "sleepy": f'name = "sleepy"\nbinary = "{sleepy}"\ncores = 1\n',
        "crashy": f'name = "crashy"\nbinary = "{crashy}"\ncores = 1\n',
        "ghost": textwrap.dedent("""\
            name = "ghost"
            binary = "ghost_binary"
            component = "GHOST"
            default = true
            future_key = "tolerated"
            """),
    }
    for folder, text in entries.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "system.toml").write_text("[[system]]\n" + text)
    monkeypatch.setenv("TASKBENCH_SYSTEMS_DIR", str(root))
    return root
