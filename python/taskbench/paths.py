"""Files the harness writes where the user said (--db, --csv, --json, --html): their missing
folders are made, the same way for each, and said once; a folder that cannot be made is one line,
and so is one at the root of the file system (a mistyped absolute path, never a folder to make
there)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError


# A file's name to suggest where a folder was given for it, by the option that names it.
EXAMPLE_NAMES = {"--html": "taskbench-report.html", "--csv": "runs.csv", "--json": "runs.json",
                 "-json": "report.json", "--db": "taskbench.db"}


def _top_missing(folder: Path) -> Path | None:
    """The topmost of the folders missing above a file in `folder` (None: none is missing)."""
    if folder.is_dir():
        return None
    top = folder
    while not top.parent.exists():
        top = top.parent
    return top


def _refuse_at_root(path, what: str, top: Path | None) -> None:
    if top is not None and top.is_absolute() and top.parent == Path(top.anchor):
        raise UserError(f"{what} {path}: there is no folder {top}, and none is made at the root of the file "
                        "system (a mistyped path?); give a path inside an existing folder", EXIT_USAGE)


def make_parents(path: str | Path, what: str) -> Path | None:
    """Makes the folders missing above `path` (the file `what`, e.g. "--csv"); returns the
    topmost folder it made, for the caller's note, or None when there was none to make."""
    folder = Path(path).parent
    top = _top_missing(folder)
    if top is None:
        return None
    _refuse_at_root(path, what, top)
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
        example = EXAMPLE_NAMES.get(what.split(":")[0].split()[0], "taskbench-report.html")
        raise UserError(f"{what} {path}: is a folder; give a file's name (e.g. {path / example})")
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
