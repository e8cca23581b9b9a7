"""`taskbench export --csv FILE | --json FILE`: every stored run (or one campaign's)."""

from __future__ import annotations

import csv
import json
import sys

from taskbench.errors import EXIT_OK, UserError
from taskbench.store import RUN_COLUMNS

# The bulky columns stay in JSON exports only; CSV is for spreadsheets.
CSV_SKIPPED = {"report", "stdout_tail"}


def add_parser(subparsers, common):
    p = subparsers.add_parser("export", parents=[common], help="export stored runs as CSV or JSON")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--csv", metavar="FILE", help="CSV file ('-' for stdout)")
    target.add_argument("--json", metavar="FILE", help="JSON file ('-' for stdout)")
    p.add_argument("--campaign", help="only this campaign's runs")
    return p


def _open(path: str):
    if path == "-":
        return sys.stdout
    try:
        return open(path, "w", newline="")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}")


def main(args, ctx) -> int:
    store = ctx.store
    if args.campaign:
        store.campaign(args.campaign)  # one-line error for an unknown name
    runs = store.runs(args.campaign)
    if args.json:
        out = _open(args.json)
        payload = {"schema": "taskbench-export", "schema_version": 1,
                   "campaigns": [c for c in store.campaigns() if not args.campaign or c["name"] == args.campaign],
                   "runs": runs}
        json.dump(payload, out, indent=1, default=str)
        out.write("\n")
    else:
        out = _open(args.csv)
        columns = ["id", *[c for c in RUN_COLUMNS if c not in CSV_SKIPPED]]
        writer = csv.writer(out)
        writer.writerow(columns)
        for run in runs:
            writer.writerow([json.dumps(run[c]) if isinstance(run.get(c), (dict, list)) else run.get(c)
                             for c in columns])
    if out is not sys.stdout:
        out.close()
        ctx.console.note(f"{len(runs)} runs written to {args.json or args.csv}")
    return EXIT_OK
