"""What the multi-host tests share: the graphs they run and the figures they check against."""
from __future__ import annotations

import re
import sqlite3
import subprocess

from conftest import REPO

GRAPHS = ["-steps", "20", "-width", "6", "-type", "stencil_1d", "-and",
          "-steps", "20", "-width", "6", "-type", "nearest", "-radix", "3"]


def serial_totals(flags: list[str]) -> tuple[int, int]:
    out = subprocess.run([str(REPO / "build" / "bin" / "serial"), *flags], capture_output=True, text=True,
                         timeout=60).stdout
    return (int(re.search(r"Total Tasks (\d+)", out)[1]), int(re.search(r"Total Dependencies (\d+)", out)[1]))


def stored_run(db) -> dict:
    with sqlite3.connect(db) as c:
        c.row_factory = sqlite3.Row
        return dict(c.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone())
