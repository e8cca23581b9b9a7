"""Where an ELF file tells the dynamic loader to look for its libraries, and which of those
places are unsafe: an empty or relative RUNPATH/RPATH entry is resolved against the directory
the process runs in, so a library planted there (a shared /tmp, a scratch folder) is loaded
before the system's own. Only absolute entries and $ORIGIN-relative ones are safe."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

_ELF_MAGIC = b"\x7fELF"
_DYNAMIC = re.compile(r"\((RUNPATH|RPATH|NEEDED)\)\s+[^\[]*\[(.*)\]")


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == _ELF_MAGIC
    except OSError:
        return False


def elf_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p))


def dynamic_entries(path: Path) -> dict[str, list[str]]:
    """{"RUNPATH": [...], "RPATH": [...], "NEEDED": [...]} read by readelf -d."""
    out = subprocess.run(["readelf", "-d", "-W", str(path)], capture_output=True, text=True).stdout
    entries: dict[str, list[str]] = {"RUNPATH": [], "RPATH": [], "NEEDED": []}
    for kind, value in _DYNAMIC.findall(out):
        entries[kind] += [value] if kind == "NEEDED" else value.split(":")
    return entries


def unsafe_entries(search_path: list[str]) -> list[str]:
    """The entries the loader would resolve against the current directory."""
    return [entry for entry in search_path if not (entry.startswith("/") or entry.startswith("$ORIGIN")
                                                   or entry.startswith("${ORIGIN}"))]


def unsafe_files(root: Path) -> dict[str, list[str]]:
    """{file relative to root: its RUNPATH and RPATH} for each ELF file with an unsafe entry."""
    bad = {}
    for path in elf_files(root):
        entries = dynamic_entries(path)
        search_path = entries["RUNPATH"] + entries["RPATH"]
        if unsafe_entries(search_path):
            bad[str(path.relative_to(root))] = search_path
    return bad
