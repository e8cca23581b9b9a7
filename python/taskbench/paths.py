"""Files the harness writes where the user said (--db, --csv, --json, --html): their missing
folders are made, the same way for each, and said once; a folder that cannot be made is one line."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, UserError


def make_parents(path: str | Path, what: str) -> Path | None:
    """Makes the folders missing above `path` (the file `what`, e.g. "--csv"); returns the
    topmost folder it made, for the caller's note, or None when there was none to make."""
    folder = Path(path).parent
    if folder.is_dir():
        return None
    top = folder
    while not top.parent.exists():
        top = top.parent
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot make its folder {folder}: {exc.strerror}", EXIT_ENVIRONMENT)
    return top


def remove_made_folders(folder: Path, top: Path) -> None:
    """Removes `folder` and its parents up to `top` (which make_parents made), while empty."""
    while True:
        try:
            folder.rmdir()
        except OSError:
            return
        if folder == top:
            return
        folder = folder.parent


def check_writable(path: str | Path, what: str, console=None) -> None:
    """Checks, before any work, that the file `what` (e.g. "--html") can be written at `path`:
    not a folder, its folder made (and said) or writable. Tried with a file of its own, since
    permission bits say nothing of a read-only file system, nor anything to root."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{what} {path}: is a folder; give a file's name (e.g. {path / 'taskbench-report.html'})")
    made = make_parents(path, what)
    if made and console is not None:
        console.note(f"made the folder {made} for {path}")
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}."):
            pass
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot write it: {exc.strerror}")
