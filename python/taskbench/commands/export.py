"""`taskbench export --csv FILE | --json FILE`: every stored run (or one campaign's), one row or
object per run; with --campaigns, one per campaign instead.

--json writes a JSON array of flat records (pandas.read_json loads it): the CSV's columns, with
the JSON-valued ones (flags, argv, env, machine, load_average) and the bulky ones (report,
stdout_tail) as nested values, not strings. docs/harness.md ("Commands") documents the shape.
"""

from __future__ import annotations

import csv
import json
import math
import sys

from taskbench import units
from taskbench.commands.campaigns import stored_metg
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


def with_metg_text(campaign: dict) -> dict:
    """A METG campaign's published results with each system's METG as every command shows it
    (`metg_text`, `half_width_text`: units.metg, units.half_width), beside the numbers."""
    results = campaign.get("results")
    if not results or "systems" not in results:
        return campaign
    systems = {}
    for system, r in results["systems"].items():
        low, high = r.get("interval_seconds") or [None, None]
        systems[system] = {**r, "metg_text": stored_metg(r),
                           "half_width_text": units.half_width(r.get("metg_seconds"), low, high)}
    return {**campaign, "results": {**results, "systems": systems}}


def finite(value):
    """`value` with every infinite or NaN number as null: JSON has none (Python's "Infinity" is
    refused by jq and JavaScript); an interval's side that cannot be placed reads "unbounded" in
    metg_text, and a missing one has no text."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


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
        records = [with_metg_text(c) for c in store.campaigns() if not args.campaign or c["name"] == args.campaign]
        columns = list(records[0]) if records else []
    else:
        records = with_placement(store, store.runs(args.campaign))
        columns = ["id", *RUN_COLUMNS, *PLACEMENT_COLUMNS]
    out = _open(args.json or args.csv, "--json" if args.json else "--csv", ctx.console)
    if args.json:
        json.dump([{c: finite(r.get(c)) for c in columns} for r in records], out, indent=1, default=str,
                  allow_nan=False)
        out.write("\n")
    else:
        columns = [c for c in columns if c not in CSV_SKIPPED]
        writer = csv.writer(out)
        writer.writerow(columns)
        for record in records:
            writer.writerow([json.dumps(finite(record[c]), allow_nan=False) if isinstance(record.get(c), (dict, list))
                             else record.get(c) for c in columns])
    if out is not sys.stdout:
        out.close()
        what = "campaigns" if args.campaigns else "runs"
        ctx.console.note(f"{len(records)} {what} written to {args.json or args.csv}")
    return EXIT_OK
