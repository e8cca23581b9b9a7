"""`taskbench compare A B`: two stored METG campaigns side by side, B/A per system and pattern."""

from __future__ import annotations

from taskbench import units
from taskbench.console import Fit
from taskbench.errors import EXIT_OK, EXIT_USAGE, UserError
from taskbench.measure.analysis import analyze
from taskbench.report.tables import metg_label


def add_parser(subparsers, common):
    p = subparsers.add_parser("compare", parents=[common], help="compare the METGs of two campaigns")
    p.add_argument("a", help="campaign name (the baseline)")
    p.add_argument("b", help="campaign name")
    return p


def compare_fit(threshold: float) -> Fit:
    # The graphs are the campaigns': the title says them on a terminal.
    label = metg_label(threshold)
    return Fit(short={f"{label} A": "METG A", f"{label} B": "METG B"},
               tsv_only=("A pattern/kernel", "B pattern/kernel"))


def compare_rows(a, b) -> list[list]:
    rows = []
    names = list(dict.fromkeys([*a.curves, *b.curves]))
    for name in names:
        ca, cb = a.curves.get(name), b.curves.get(name)
        ma = ca.summary.median if ca else None
        mb = cb.summary.median if cb else None
        ratio = f"{mb / ma:.2f}x" if ma and mb else "—"
        rows.append([name, f"{a.params.pattern}/{a.params.kernel}", f"{b.params.pattern}/{b.params.kernel}",
                     units.seconds(ma) if ma else ("no METG" if ca else "not in A"),
                     units.seconds(mb) if mb else ("no METG" if cb else "not in B"), ratio])
    return rows


def main(args, ctx) -> int:
    ctx.read_only = True
    a, b = analyze(ctx.store, args.a), analyze(ctx.store, args.b)
    for c in (a, b):
        if c.campaign["kind"] != "metg":
            raise UserError(f"campaign '{c.name}' is a {c.campaign['kind']} campaign, not metg", EXIT_USAGE)
    label = metg_label(a.params.threshold)
    columns = ["system", "A pattern/kernel", "B pattern/kernel", f"{label} A", f"{label} B", "B/A"]
    ctx.console.table(f"{label}: {a.name} (A, {a.params.pattern}/{a.params.kernel}) vs {b.name} "
                      f"(B, {b.params.pattern}/{b.params.kernel})", columns, compare_rows(a, b),
                      compare_fit(a.params.threshold))
    if a.params.threshold != b.params.threshold:
        ctx.console.warn("the campaigns use different thresholds")
    return EXIT_OK
