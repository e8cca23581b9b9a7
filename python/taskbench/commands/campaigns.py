"""`taskbench campaigns`: what the store holds (names to pass to compare, report, --resume)."""

from __future__ import annotations

from collections import Counter

from taskbench.console import Fit
from taskbench.errors import EXIT_OK

# A campaign's name already starts with its kind and ends with its time: those go first.
CAMPAIGNS_FIT = Fit(optional=("created", "kind", "what"))


def add_parser(subparsers, common):
    p = subparsers.add_parser("campaigns", parents=[common], help="list the stored campaigns")
    p.add_argument("--kind", choices=["metg", "peak", "run", "study"])
    return p


def main(args, ctx) -> int:
    ctx.read_only = True
    store = ctx.store
    rows = []
    for c in store.campaigns(args.kind):
        runs = store.runs(c["name"])
        statuses = Counter(r["status"] for r in runs)
        p = c["params"]
        what = (f"{p.get('pattern')}/{p.get('kernel')}" if c["kind"] == "metg"
                else f"study {p.get('study')}" if c["kind"] == "study"
                else p.get("kernel") or " ".join(p.get("flags", [])))
        rows.append([c["name"], c["kind"], c["status"], c["created"], ", ".join(p.get("systems", [])),
                     what, len(runs), len(runs) - statuses.get("ok", 0)])
    ctx.console.table(f"campaigns in {store.path}",
                      ["campaign", "kind", "status", "created", "systems", "what", "runs", "failed"], rows,
                      CAMPAIGNS_FIT)
    return EXIT_OK
