"""Helpers the harness tests import (conftest.py is for fixtures; its module name is not unique
when pytest collects tests/ as a whole)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class FakeSystem:
    """A registry entry as study planning sees it: name, availability, breakdown key, whether
    its start-up is heavy and its roles in the studies."""

    def __init__(self, name, available=True, reason="", breakdown=None, heavy=False, studies=None):
        self.name, self.available, self.reason, self.breakdown = name, available, reason, breakdown
        self.heavy, self.studies, self.folder = heavy, dict(studies or {}), Path("systems") / name


class FakeRegistry:
    """Registry.get / iteration over FakeSystems, with the real registry's unknown-name error."""

    def __init__(self, *systems):
        self.systems = {s.name: s for s in systems}

    def __iter__(self):
        return iter(self.systems.values())

    def get(self, name):
        if name not in self.systems:
            from taskbench.errors import UserError
            raise UserError(f"unknown system '{name}'")
        return self.systems[name]
