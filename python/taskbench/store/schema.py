"""What the store holds: the SQLite schema (campaigns, their runs, traced runs' events), the
columns a run is stored in, and how a stored row reads back (its JSON columns decoded)."""

from __future__ import annotations

import json
import sqlite3

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,              -- metg | peak | run | study | check
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
  -- JSON: {"workers": [[pid, tid], ...], "events": [[w, graph, t, i, start_us, dur_us], ...]}
  events TEXT NOT NULL
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
JSON_COLUMNS = {"flags", "argv", "env", "machine", "load_average", "report"}
# Columns added to `campaigns` since its first version (an earlier store gains them as NULLs).
CAMPAIGN_ADDED_COLUMNS = ("results",)
CAMPAIGN_JSON = {"params", "machine", "harness", "results"}


def decode(row: sqlite3.Row, json_columns=JSON_COLUMNS) -> dict:
    out = dict(row)
    for key in json_columns:
        if key in out and isinstance(out[key], str):
            try:
                out[key] = json.loads(out[key])
            except ValueError:
                pass
    return out
