"""SQLite store: every run with its provenance, grouped in campaigns.

Durability: WAL journal, one transaction per run, committed before the next run starts, so a
sweep killed at any moment (SIGKILL included) keeps every run already measured. Each planned run
has a key that is unique within its campaign (UNIQUE(campaign, key)): a resumed sweep looks the
key up before running, so it neither repeats nor loses a run.

Opening checks the file (PRAGMA quick_check: 7 to 15 ms on a store of 3200 runs, 14 MB), so a
damaged store is one line before anything is read or written. Commands that only read open it
read-only; a process that executes a campaign claims it (Store.claim) while the store is open.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_USAGE, UserError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,              -- metg | peak | run | study
  status TEXT NOT NULL,            -- running | done
  created TEXT NOT NULL,
  finished TEXT,
  params TEXT NOT NULL,            -- JSON: what was asked (systems, graph shape, threshold, ...)
  machine_id TEXT NOT NULL,
  machine TEXT NOT NULL,           -- JSON, as seen by the harness
  git_revision TEXT,
  harness TEXT,                    -- JSON: harness version, python, command line
  results TEXT                     -- JSON: what `taskbench metg` published: METG per system,
                                   -- reliable or not and why (analysis.results_record)
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign TEXT NOT NULL REFERENCES campaigns(name),
  key TEXT NOT NULL,               -- deterministic within the campaign: system/iter/rep
  system TEXT NOT NULL,
  system_version TEXT,
  launcher TEXT,
  rep INTEGER,
  iter INTEGER,
  pattern TEXT,
  kernel TEXT,
  steps INTEGER,
  width INTEGER,
  radix INTEGER,
  flags TEXT,                      -- JSON list: the Task Bench flags given to the system
  argv TEXT,                       -- JSON list: the full command line
  env TEXT,                        -- JSON: OMP_*, TASKBENCH_*, MPI variables in effect
  ranks INTEGER,
  threads_per_rank INTEGER,
  cores INTEGER,
  status TEXT NOT NULL,            -- ok | bad_flags | validation | crashed | timeout | failed | ...
  reason TEXT,
  exit_code INTEGER,
  wall_seconds REAL,
  background_load REAL,            -- cores used by other processes during the run (coarse)
  background_cpu_seconds REAL,     -- the same in CPU seconds, signed (10 ms tick error)
  tasks INTEGER,
  dependencies INTEGER,
  flops INTEGER,
  bytes INTEGER,
  nodes INTEGER,
  elapsed_seconds REAL,
  flops_per_second REAL,
  bytes_per_second REAL,
  granularity_seconds REAL,
  machine_id TEXT,
  machine TEXT,                    -- JSON: the system's report's machine block, else the harness's
  compiler TEXT,
  build_flags TEXT,
  git_revision TEXT,
  started_at TEXT,
  load_average TEXT,
  stdout_tail TEXT,
  stderr_tail TEXT,
  report TEXT,                     -- JSON: the system's whole report
  UNIQUE (campaign, key)
);
CREATE TABLE IF NOT EXISTS traces (  -- the task events of a run made with -trace (traces.py)
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  events TEXT NOT NULL             -- JSON: {"workers": [[pid, tid], ...], "events": [[w, graph, t, i, start_us, dur_us], ...]}
);
CREATE INDEX IF NOT EXISTS runs_by_campaign ON runs(campaign);
CREATE INDEX IF NOT EXISTS runs_by_kernel ON runs(kernel, status);
"""

RUN_COLUMNS = ("campaign", "key", "system", "system_version", "launcher", "rep", "iter", "pattern",
               "kernel", "steps", "width", "radix", "flags", "argv", "env", "ranks",
               "threads_per_rank", "cores", "status", "reason", "exit_code", "wall_seconds", "background_load",
               "background_cpu_seconds", "tasks", "dependencies", "flops", "bytes", "nodes", "elapsed_seconds",
               "flops_per_second", "bytes_per_second", "granularity_seconds", "machine_id",
               "machine", "compiler", "build_flags", "git_revision", "started_at", "load_average",
               "stdout_tail", "stderr_tail", "report")
_JSON_COLUMNS = {"flags", "argv", "env", "machine", "load_average", "report"}
# Columns added to `campaigns` since its first version (an earlier store gains them as NULLs).
CAMPAIGN_ADDED_COLUMNS = ("results",)
_CAMPAIGN_JSON = {"params", "machine", "harness", "results"}


def _require_writable(path: Path) -> None:
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


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _decode(row: sqlite3.Row, json_columns=_JSON_COLUMNS) -> dict:
    out = dict(row)
    for key in json_columns:
        if key in out and isinstance(out[key], str):
            try:
                out[key] = json.loads(out[key])
            except ValueError:
                pass
    return out


class Store:
    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._claims: dict[str, int] = {}  # campaign -> the open lock file's descriptor
        if not read_only:
            _require_writable(self.path)
        elif not self.path.is_file():
            raise UserError(f"{self.path}: no such store (`taskbench run` or `metg` creates one)", EXIT_USAGE)
        try:
            # Autocommit mode: every write below opens and commits its own transaction.
            target, uri = self._target()
            self.db = sqlite3.connect(target, timeout=30, isolation_level=None, uri=uri)
            self.db.row_factory = sqlite3.Row
            self._check_integrity()
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UserError(f"{self.path}: written by a newer taskbench (schema {version})",
                                EXIT_ENVIRONMENT)
            if read_only:
                self._show_missing_columns()
                return
            self.db.execute("PRAGMA journal_mode=WAL")
            # With WAL, NORMAL survives a crash of this process (not of the OS) and is fast.
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(_SCHEMA)
            self._add_missing_columns()
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise UserError(f"{self.path}: cannot use the database ({exc})", EXIT_ENVIRONMENT)

    def _target(self) -> tuple[str, bool]:
        """What sqlite3.connect opens: the path, or for a reader a read-only URI."""
        if not self.read_only:
            return str(self.path), False
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        # A reader of a WAL store needs its -shm file beside it. In a folder no one can write,
        # no one can write the store either (its journal could not be created): SQLite is then
        # told that the file cannot change, and reads it without the -shm.
        if not os.access(self.path.parent, os.W_OK) and not Path(f"{self.path}-wal").exists():
            uri += "&immutable=1"
        return uri, True

    def _check_integrity(self) -> None:
        try:
            problems = [row[0] for row in self.db.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.DatabaseError as exc:  # SQLITE_CORRUPT, SQLITE_NOTADB: unreadable pages
            if exc.sqlite_errorname not in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
                raise
            problems = [str(exc)]
        if problems != ["ok"]:
            raise UserError(
                f"{self.path}: the database is damaged ({problems[0]}); nothing was read or written. "
                f"Move it aside (the next run starts a new store) and rescue what it holds with the "
                f"sqlite3 shell's `.recover` (`sqlite3 {self.path} .recover > rescued.sql`)", EXIT_ENVIRONMENT)

    def _show_missing_columns(self) -> None:
        """A reader cannot add the columns an earlier harness did not write: temporary views
        (which shadow the tables for this connection only) show them as NULLs instead."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"runs", "campaigns"} <= tables:
            raise UserError(f"{self.path}: not a taskbench store (no runs or campaigns table)", EXIT_ENVIRONMENT)
        for table, missing in self._missing_columns():
            nulls = ", ".join(f"NULL AS {column}" for column in missing)
            self.db.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {nulls} FROM main.{table}")

    def _missing_columns(self) -> list[tuple[str, list[str]]]:
        out = []
        for table, columns in (("runs", RUN_COLUMNS), ("campaigns", CAMPAIGN_ADDED_COLUMNS)):
            have = {row[1] for row in self.db.execute(f"PRAGMA main.table_info({table})")}
            missing = [column for column in columns if column not in have]
            if missing:
                out.append((table, missing))
        return out

    def _add_missing_columns(self) -> None:
        """A store written by an earlier harness gains the columns added since (as NULLs)."""
        for table, missing in self._missing_columns():
            for column in missing:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")

    def close(self) -> None:
        for name in list(self._claims):
            self._release(name)
        self.db.close()
        if self.read_only and self._journal_left_behind():
            self._tidy_journal()

    def _journal_left_behind(self) -> bool:
        """A read-only connection to a WAL store makes its -wal and -shm files and leaves them,
        empty, when it closes: only a connection that may write removes them."""
        wal = Path(f"{self.path}-wal")
        return (wal.exists() and wal.stat().st_size == 0 and os.access(self.path, os.W_OK)
                and os.access(self.path.parent, os.W_OK))

    def _tidy_journal(self) -> None:
        """Opens and closes a writing connection, which removes the empty journal files as the
        store's last connection; while another process has the store open SQLite keeps them (it
        removes them only under its exclusive lock), so a running campaign is never disturbed."""
        try:
            db = sqlite3.connect(str(self.path), timeout=0.1, isolation_level=None)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL, to close it
            db.close()
        except sqlite3.Error:
            pass  # busy or unwritable after all: the files stay, as SQLite left them

    # -- who executes a campaign ------------------------------------------------------------
    def claim(self, name: str) -> None:
        """Makes this process the one that executes campaign `name` until the store is closed;
        refuses at once if another live process holds it. The claim is a lock (flock) on a
        file beside the store: the kernel drops it when its holder dies, however it dies."""
        path = self._claim_path(name)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip()
                os.close(fd)
                raise UserError(f"another process{f' (pid {holder})' if holder else ''} is running campaign "
                                f"'{name}' of {self.path}; wait for it to end or stop it", EXIT_ENVIRONMENT)
            # The holder before us removes the file when it is done: if it did so after we
            # opened it, our lock is on a file no one else will open; lock the current one.
            try:
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._claims[name] = fd

    def _claim_path(self, name: str) -> str:
        return f"{self.path}-claim-{hashlib.sha1(name.encode()).hexdigest()[:16]}"

    def _release(self, name: str) -> None:
        fd = self._claims.pop(name)
        with contextlib.suppress(FileNotFoundError):  # removed by hand: nothing left to clean
            os.unlink(self._claim_path(name))
        os.close(fd)

    # -- campaigns --------------------------------------------------------------------------
    def create_campaign(self, name: str, kind: str, params: dict, machine: dict, machine_id: str,
                        git_revision: str | None, harness: dict) -> None:
        try:
            self.db.execute(
                "INSERT INTO campaigns (name, kind, status, created, params, machine_id, machine,"
                " git_revision, harness) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                (name, kind, now(), json.dumps(params), machine_id, json.dumps(machine),
                 git_revision, json.dumps(harness)))
        except sqlite3.IntegrityError:
            raise UserError(f"campaign '{name}' already exists (use --resume to continue it, or "
                            "choose another --campaign name)", EXIT_USAGE)

    def annotate_campaign_machine(self, name: str, key: str, value) -> None:
        """Adds what was measured of the machine during the campaign to its machine record."""
        machine = self.campaign(name)["machine"] or {}
        machine[key] = value
        self.db.execute("UPDATE campaigns SET machine=? WHERE name=?", (json.dumps(machine), name))

    def set_campaign_results(self, name: str, results: dict) -> None:
        """Replaces the campaign's published results (analysis.results_record)."""
        self.db.execute("UPDATE campaigns SET results=? WHERE name=?", (json.dumps(results), name))

    def finish_campaign(self, name: str) -> None:
        self.db.execute("UPDATE campaigns SET status='done', finished=? WHERE name=? AND status!='done'",
                        (now(), name))

    def has_campaign(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM campaigns WHERE name=?", (name,)).fetchone() is not None

    def campaign(self, name: str) -> dict:
        row = self.db.execute("SELECT * FROM campaigns WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UserError(f"no campaign named '{name}' in {self.path}", EXIT_USAGE)
        return _decode(row, _CAMPAIGN_JSON)

    def campaigns(self, kind: str | None = None) -> list[dict]:
        sql, args = "SELECT * FROM campaigns", ()
        if kind:
            sql, args = sql + " WHERE kind=?", (kind,)
        rows = self.db.execute(sql + " ORDER BY created, rowid", args).fetchall()
        return [_decode(r, _CAMPAIGN_JSON) for r in rows]

    def latest_unfinished(self, kind: str) -> dict | None:
        row = self.db.execute("SELECT name FROM campaigns WHERE kind=? AND status='running' "
                              "ORDER BY created DESC, rowid DESC LIMIT 1", (kind,)).fetchone()
        return self.campaign(row["name"]) if row else None

    def unique_name(self, base: str) -> str:
        name, n = base, 1
        while self.has_campaign(name):
            n += 1
            name = f"{base}-{n}"
        return name

    # -- runs -------------------------------------------------------------------------------
    def get_run(self, campaign: str, key: str) -> dict | None:
        row = self.db.execute("SELECT * FROM runs WHERE campaign=? AND key=?", (campaign, key)).fetchone()
        return _decode(row) if row else None

    def add_run(self, record: dict) -> dict:
        """Stores one run in its own transaction; a key already stored is kept, not duplicated."""
        values = [json.dumps(record.get(c)) if c in _JSON_COLUMNS and record.get(c) is not None
                  else record.get(c) for c in RUN_COLUMNS]
        sql = (f"INSERT OR IGNORE INTO runs ({', '.join(RUN_COLUMNS)}) "
               f"VALUES ({', '.join('?' * len(RUN_COLUMNS))})")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(sql, values)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return self.get_run(record["campaign"], record["key"])

    def runs(self, campaign: str | None = None, status: str | None = None) -> list[dict]:
        sql, args, where = "SELECT * FROM runs", [], []
        if campaign:
            where.append("campaign=?")
            args.append(campaign)
        if status:
            where.append("status=?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [_decode(r) for r in self.db.execute(sql + " ORDER BY id", args).fetchall()]

    # -- traces -----------------------------------------------------------------------------
    def add_trace(self, run_id: int, events: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO traces (run_id, events) VALUES (?, ?)",
                        (run_id, json.dumps(events, separators=(",", ":"))))

    def trace(self, run_id: int) -> dict | None:
        row = self.db.execute("SELECT events FROM traces WHERE run_id=?", (run_id,)).fetchone()
        return json.loads(row["events"]) if row else None

    def peak_runs(self, kernel: str, machine_id: str) -> list[dict]:
        rows = self.db.execute(
            "SELECT runs.* FROM runs JOIN campaigns ON campaigns.name = runs.campaign "
            "WHERE campaigns.kind='peak' AND runs.kernel=? AND runs.machine_id=? AND runs.status='ok'",
            (kernel, machine_id)).fetchall()
        return [_decode(r) for r in rows]
