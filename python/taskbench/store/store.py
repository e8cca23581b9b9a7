"""The store: every run with its provenance, grouped in campaigns, in one SQLite file.

Each planned run has a key that is unique within its campaign (UNIQUE(campaign, key)): a resumed
sweep looks the key up before running, so it neither repeats nor loses a run. Each run is stored
in its own transaction, committed before the next run starts (connection.py: the file, its
checks and journal; schema.py: the tables). Commands that only read open it read-only; a process
that executes a campaign claims it (claims.py) while the store is open.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.store import connection
from taskbench.store.claims import Claims
from taskbench.store.schema import CAMPAIGN_JSON, JSON_COLUMNS, RUN_COLUMNS, decode


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self.created = not read_only and not self.path.exists()
        self.db = connection.connect(self.path, read_only)
        self._claims = Claims(self.path)

    def close(self) -> None:
        """A store this command created and left without a campaign (a rejected flag, a run
        interrupted before it ended) is removed: a mistake leaves no file behind."""
        self._claims.release_all()
        if self.created and connection.remove_if_empty(self.db, self.path):
            return
        connection.close(self.db, self.path, self.read_only)

    def claim(self, name: str) -> None:
        """Claims.claim: this process executes campaign `name` until the store is closed."""
        self._claims.claim(name)

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

    def status(self, campaign: dict) -> str:
        """The campaign's status as a reader should see it: `interrupted` for one stored as
        `running` that no live process executes (Ctrl-C, a kill, a crash), else the stored one.
        A campaign runs under its own claim or its parent's (NAME-...: a METG study's sweeps)."""
        if campaign["status"] != "running":
            return campaign["status"]
        name, parts = campaign["name"], campaign["name"].split("-")
        owners = [name, *("-".join(parts[:i]) for i in range(1, len(parts)))]
        return "running" if any(self._claims.held(owner) for owner in owners) else "interrupted"

    def has_campaign(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM campaigns WHERE name=?", (name,)).fetchone() is not None

    def campaign(self, name: str) -> dict:
        row = self.db.execute("SELECT * FROM campaigns WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UserError(f"no campaign named '{name}' in {self.path}", EXIT_USAGE)
        return decode(row, CAMPAIGN_JSON)

    def campaigns(self, kind: str | None = None) -> list[dict]:
        sql, args = "SELECT * FROM campaigns", ()
        if kind:
            sql, args = sql + " WHERE kind=?", (kind,)
        rows = self.db.execute(sql + " ORDER BY created, rowid", args).fetchall()
        return [decode(r, CAMPAIGN_JSON) for r in rows]

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
        return decode(row) if row else None

    def add_run(self, record: dict) -> dict:
        """Stores one run in its own transaction; a key already stored is kept, not duplicated."""
        values = [json.dumps(record.get(c)) if c in JSON_COLUMNS and record.get(c) is not None
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
        return [decode(r) for r in self.db.execute(sql + " ORDER BY id", args).fetchall()]

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
        return [decode(r) for r in rows]
