"""Opening and closing the store's SQLite file: checked before anything is read or written (a
damaged or newer store is one line), read-only for the commands that only read, brought up to
this harness's columns for the ones that write, and its journal files tidied after a reader.

Durability: WAL journal, and every write its own transaction (Store), so a sweep killed at any
moment (SIGKILL included) keeps every run already measured. PRAGMA quick_check takes 7 to 15 ms
on a store of 3200 runs (14 MB).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError
from taskbench.store.schema import CAMPAIGN_ADDED_COLUMNS, RUN_COLUMNS, SCHEMA, SCHEMA_VERSION


def require_writable(path: Path) -> None:
    """A command that stores runs needs to write the file and, for SQLite's journal (-wal,
    -shm), its folder: one clear line now rather than a failed write later."""
    folder = path.parent
    if not folder.is_dir():
        raise UserError(f"{path}: no such folder {folder}", EXIT_USAGE)
    if path.exists() and not os.access(path, os.W_OK):
        raise UserError(f"{path}: the store is read-only, and this command writes to it; make it "
                        "writable or pass another --db", EXIT_ENVIRONMENT)
    if not os.access(folder, os.W_OK):
        raise UserError(f"{path}: its folder {folder} is not writable, and this command writes to the "
                        "store (SQLite keeps its journal beside it); make the folder writable or pass "
                        "another --db", EXIT_ENVIRONMENT)


def connect(path: Path, read_only: bool) -> sqlite3.Connection:
    """The store's connection, in autocommit mode (every write opens and commits its own
    transaction), its file checked and, for a writer, brought up to this harness's schema."""
    if not read_only:
        require_writable(path)
    elif not path.is_file():
        raise UserError(f"{path}: no such store (`taskbench run` or `metg` creates one)", EXIT_USAGE)
    try:
        target, uri = _target(path, read_only)
        db = sqlite3.connect(target, timeout=30, isolation_level=None, uri=uri)
        db.row_factory = sqlite3.Row
        _check_integrity(db, path)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise UserError(f"{path}: written by a newer taskbench (schema {version})", EXIT_ENVIRONMENT)
        if read_only:
            _show_missing_columns(db, path)
            return db
        db.execute("PRAGMA journal_mode=WAL")
        # With WAL, NORMAL survives a crash of this process (not of the OS) and is fast.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        for table, missing in _missing_columns(db):  # a store of an earlier harness gains them as NULLs
            for column in missing:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        return db
    except sqlite3.DatabaseError as exc:
        raise UserError(f"{path}: cannot use the database ({exc})", EXIT_ENVIRONMENT)


def _target(path: Path, read_only: bool) -> tuple[str, bool]:
    """What sqlite3.connect opens: the path, or for a reader a read-only URI."""
    if not read_only:
        return str(path), False
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    # A reader of a WAL store needs its -shm file beside it. In a folder no one can write,
    # no one can write the store either (its journal could not be created): SQLite is then
    # told that the file cannot change, and reads it without the -shm.
    if not os.access(path.parent, os.W_OK) and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return uri, True


def _check_integrity(db: sqlite3.Connection, path: Path) -> None:
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:  # SQLITE_CORRUPT, SQLITE_NOTADB: unreadable pages
        if exc.sqlite_errorname not in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
            raise
        problems = [str(exc)]
    if problems != ["ok"]:
        raise UserError(
            f"{path}: the database is damaged ({problems[0]}); nothing was read or written. "
            f"Move it aside (the next run starts a new store) and rescue what it holds with the "
            f"sqlite3 shell's `.recover` (`sqlite3 {path} .recover > rescued.sql`)", EXIT_ENVIRONMENT)


def _show_missing_columns(db: sqlite3.Connection, path: Path) -> None:
    """A reader cannot add the columns an earlier harness did not write: temporary views
    (which shadow the tables for this connection only) show them as NULLs instead."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not {"runs", "campaigns"} <= tables:
        raise UserError(f"{path}: not a taskbench store (no runs or campaigns table)", EXIT_ENVIRONMENT)
    for table, missing in _missing_columns(db):
        nulls = ", ".join(f"NULL AS {column}" for column in missing)
        db.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {nulls} FROM main.{table}")


def _missing_columns(db: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    out = []
    for table, columns in (("runs", RUN_COLUMNS), ("campaigns", CAMPAIGN_ADDED_COLUMNS)):
        have = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
        missing = [column for column in columns if column not in have]
        if missing:
            out.append((table, missing))
    return out


def close(db: sqlite3.Connection, path: Path, read_only: bool) -> None:
    db.close()
    if read_only and _journal_left_behind(path):
        _tidy_journal(path)


def remove_if_empty(db: sqlite3.Connection, path: Path) -> bool:
    """Removes the store's files, and closes it, when it holds no campaign; the check and the
    removal under SQLite's write lock, so a campaign another process is adding is never lost."""
    try:
        db.execute("BEGIN IMMEDIATE")
        empty = db.execute("SELECT NOT EXISTS (SELECT 1 FROM campaigns)").fetchone()[0]
        if empty:
            for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                file.unlink(missing_ok=True)
        db.execute("ROLLBACK")
    except sqlite3.Error:
        return False  # busy: another process uses it, so it stays
    if empty:
        db.close()
    return bool(empty)


def _journal_left_behind(path: Path) -> bool:
    """A read-only connection to a WAL store makes its -wal and -shm files and leaves them,
    empty, when it closes: only a connection that may write removes them."""
    wal = Path(f"{path}-wal")
    return (wal.exists() and wal.stat().st_size == 0 and os.access(path, os.W_OK)
            and os.access(path.parent, os.W_OK))


def _tidy_journal(path: Path) -> None:
    """Opens and closes a writing connection, which removes the empty journal files as the
    store's last connection; while another process has the store open SQLite keeps them (it
    removes them only under its exclusive lock), so a running campaign is never disturbed."""
    try:
        db = sqlite3.connect(str(path), timeout=0.1, isolation_level=None)
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL, to close it
        db.close()
    except sqlite3.Error:
        pass  # busy or unwritable after all: the files stay, as SQLite left them
