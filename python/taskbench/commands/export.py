"""`taskbench export --csv FILE | --json FILE`: every stored run (or one campaign's), one row or
object per run; with --campaigns, one per campaign instead.

--json writes a JSON array of flat records (pandas.read_json loads it): the CSV's columns, with
the JSON-valued ones (flags, argv, env, machine, load_average) and the bulky ones (report,
stdout_tail) as nested values, not strings. docs/harness.md ("Commands") documents the shape.
"""

from __future__ import annotations

import csv
import json
import sys

from taskbench.errors import EXIT_OK, UserError
from taskbench.measure import placement
from taskbench.paths import check_writable
from taskbench.store import RUN_COLUMNS

# The bulky columns stay in JSON exports only; CSV is for spreadsheets.
CSV_SKIPPED = {"report", "stdout_tail"}
# What the campaign's placement probes say of each run (measure/placement.py): the mean one-way
# latency of the probes around it, and its placement where the campaign saw two.
PLACEMENT_COLUMNS = ("one_way_ns", "placement")


def with_placement(store, runs: list[dict]) -> list[dict]:
    probes_of = {name: (store.campaign(name)["machine"] or {}).get("placement_probes") or []
                 for name in {run["campaign"] for run in runs}}
    labels_of = {name: placement.placements(probes).labels for name, probes in probes_of.items()}
    return [dict(run, one_way_ns=placement.one_way_around(run["id"], probes_of[run["campaign"]]),
                 placement=placement.tag(run["id"], probes_of[run["campaign"]], labels_of[run["campaign"]]))
            for run in runs]


def add_parser(subparsers, common):
    p = subparsers.add_parser("export", parents=[common], help="export stored runs as CSV or JSON")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--csv", metavar="FILE", help="CSV file ('-' for stdout)")
    target.add_argument("--json", metavar="FILE", help="JSON file ('-' for stdout)")
    p.add_argument("--campaign", help="only this campaign's runs")
    p.add_argument("--campaigns", action="store_true",
                   help="the campaigns (parameters, machine, published results) instead of the runs")
    return p


def _open(path: str, what: str, console):
    if path == "-":
        return sys.stdout
    check_writable(path, what, console)
    try:
        return open(path, "w", newline="")
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot write it: {exc.strerror}")


def main(args, ctx) -> int:
    ctx.read_only = True
    store = ctx.store
    if args.campaign:
        store.campaign(args.campaign)  # one-line error for an unknown name
    if args.campaigns:
        records = [c for c in store.campaigns() if not args.campaign or c["name"] == args.campaign]
        columns = list(records[0]) if records else []
    else:
        records = with_placement(store, store.runs(args.campaign))
        columns = ["id", *RUN_COLUMNS, *PLACEMENT_COLUMNS]
    out = _open(args.json or args.csv, "--json" if args.json else "--csv", ctx.console)
    if args.json:
        json.dump([{c: r.get(c) for c in columns} for r in records], out, indent=1, default=str)
        out.write("\n")
    else:
        columns = [c for c in columns if c not in CSV_SKIPPED]
        writer = csv.writer(out)
        writer.writerow(columns)
        for record in records:
            writer.writerow([json.dumps(record[c]) if isinstance(record.get(c), (dict, list)) else record.get(c)
                             for c in columns])
    if out is not sys.stdout:
        out.close()
        what = "campaigns" if args.campaigns else "runs"
        ctx.console.note(f"{len(records)} {what} written to {args.json or args.csv}")
    return EXIT_OK
