"""Files the harness writes where the user said (--db, --csv, --json, --html): their missing
folders are made, the same way for each, and said once; a folder that cannot be made is one line."""

from __future__ import annotations

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
