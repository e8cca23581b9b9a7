"""`taskbench campaigns`: what the store holds (names to pass to compare, report, --resume), and
for a METG campaign the METGs it published, an unreliable one marked as `metg` marks it. A
campaign's status is running, done, or interrupted (stored as running, but no live process
executes it: `--resume` continues it)."""

from __future__ import annotations

from collections import Counter

from taskbench import units
from taskbench.units import BOUND_MARK, UNRELIABLE_MARK
from taskbench.console import Fit
from taskbench.errors import EXIT_OK
from taskbench.measure.traces import is_trace_run

# A campaign's name already starts with its kind and ends with its time: those go first. The
# METGs are a paragraph: below the table on a terminal.
KINDS = ("metg", "peak", "run", "study", "check")
CAMPAIGNS_FIT = Fit(optional=("created", "kind", "status"), notes=("METG",))


def add_parser(subparsers, common):
    p = subparsers.add_parser("campaigns", parents=[common], help="list the stored campaigns")
    p.add_argument("--kind", choices=KINDS, metavar="KIND",
                   help=f"only the campaigns of this kind: {', '.join(KINDS)} (default: every kind)")
    return p


def published_metgs(results: dict | None, raw: bool = False) -> str:
    """"native 344 ns (338-351), openmp_task 2.33 µs (2.1-2.6) (unreliable)" from a METG campaign's stored results
    (analysis.results_record); raw (-q): "native 3.44e-07, ..." in seconds; "" when it published none
    (interrupted, or not a METG campaign)."""
    if not results:
        return ""
    cells = []
    for system, r in results.get("systems", {}).items():
        if raw:  # seconds for a script, marked as the readable text is
            figure = (f"{r.get('metg_seconds') or 'no METG'}" + (BOUND_MARK if r.get("status") == "unbracketed" else "")
                      + ("" if r.get("reliable", True) else UNRELIABLE_MARK))
        else:
            figure = stored_metg(r)
        cells.append(f"{system} {figure}")
    return ", ".join(cells)


def stored_metg(r: dict) -> str:
    """A system's METG from a campaign's stored results (analysis.results_record) as `metg` and
    the report show it (units.metg): its interval, " or less" for a bound, the unreliable mark."""
    low, high = r.get("interval_seconds") or [None, None]
    return units.metg(r.get("metg_seconds") or None, low, high, bound=r.get("status") == "unbracketed",
                      unreliable=not r.get("reliable", True))


def main(args, ctx) -> int:
    ctx.read_only = True
    store = ctx.store
    rows = []
    for c in store.campaigns(args.kind):
        # The measurements: a campaign's traced runs (the report's Gantt charts) are not among them,
        # as `metg`'s "N runs executed" does not count them.
        runs = [r for r in store.runs(c["name"]) if not is_trace_run(r)]
        statuses = Counter(r["status"] for r in runs)
        p = c["params"]
        what = (f"{p.get('pattern')}/{p.get('kernel')}" if c["kind"] == "metg"
                else f"study {p.get('study')}" if c["kind"] == "study"
                else f"check {p.get('pattern')}, {p.get('preset')}" if c["kind"] == "check"
                else p.get("kernel") or " ".join(p.get("flags", [])))
        rows.append([c["name"], c["kind"], store.status(c), c["created"], ", ".join(p.get("systems", [])),
                     what, len(runs), len(runs) - statuses.get("ok", 0),
                     published_metgs(c.get("results"), ctx.console.quiet)])
    ctx.console.table(f"campaigns in {store.path}",
                      ["campaign", "kind", "status", "created", "systems", "what", "runs", "failed", "METG"], rows,
                      CAMPAIGNS_FIT)
    return EXIT_OK
