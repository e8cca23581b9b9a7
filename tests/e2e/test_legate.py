"""legate: built only where its runtime loads. Where it does not (the PyPI wheel needs the
NVIDIA driver's libcuda.so.1), the build records why, and `taskbench systems` shows it."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from systems import BUILD, ROOT, built_systems


def test_an_unbuilt_legate_says_why():
    manifest = BUILD / "taskbench-build.json"
    if not manifest.exists() or "legate" in built_systems():
        pytest.skip("legate is built here (its runtime loads)")
    component = json.loads(manifest.read_text())["components"]["LEGATE"]
    assert component["enabled"] is False
    if component["reason"].startswith("disabled by"):
        pytest.skip(component["reason"])
    assert "libcuda.so.1" in component["reason"]
    shown = subprocess.run([sys.executable, "-m", "taskbench", "systems", "-q", "--build-dir", str(BUILD)],
                           capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "python")})
    row = next(line for line in shown.stdout.splitlines() if line.startswith("legate\t"))
    assert "not built: legate" in row and "libcuda.so.1" in row
