"""Helpers the harness tests import (conftest.py is for fixtures; its module name is not unique
when pytest collects tests/ as a whole)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
