"""The `taskbench` command as a newcomer meets it after the quick start: .venv/bin/taskbench
(scripts/install-command.py, run by scripts/install-deps.sh) works from any folder with no
PYTHONPATH, over this checkout's python/ and build/, and so does `python -m taskbench`."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from harness_helpers import REPO

VENV_BIN = REPO / ".venv" / "bin"


@pytest.fixture
def newcomer_env():
    if not (VENV_BIN / "taskbench").exists():
        pytest.skip("no .venv/bin/taskbench: scripts/install-deps.sh installs it")
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TASKBENCH_BUILD_DIR")}


@pytest.mark.parametrize("command", [[str(VENV_BIN / "taskbench")],
                                     [str(VENV_BIN / "python"), "-m", "taskbench"]], ids=["script", "module"])
def test_the_command_runs_from_anywhere(command, newcomer_env, tmp_path):
    got = subprocess.run([*command, "--version"], capture_output=True, text=True, cwd=tmp_path,
                         env=newcomer_env, timeout=60)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("taskbench ")


def test_the_command_finds_the_checkouts_build(newcomer_env, tmp_path, bin_dir):
    got = subprocess.run([str(VENV_BIN / "taskbench"), "systems"], capture_output=True, text=True,
                         cwd=tmp_path, env=newcomer_env, timeout=120)
    assert got.returncode == 0, got.stderr
    rows = [[cell.strip() for cell in re.split(r"[│\t]", line) if cell.strip()] for line in got.stdout.splitlines()]
    serial = next((row for row in rows if row[:1] == ["serial"]), None)
    assert serial is not None and serial[1] == "yes", got.stdout  # the system column, then available
