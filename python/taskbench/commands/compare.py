"""`taskbench compare A B`: two stored METG campaigns side by side, B/A per system and pattern, as
measure/compare.py draws it; a ratio not drawn from an unreliable METG is one line and exit
EXIT_UNRELIABLE, unless --allow-unreliable."""

from __future__ import annotations

from taskbench.console import Fit
from taskbench.errors import EXIT_OK, EXIT_UNRELIABLE
from taskbench.measure.analysis import analyze
from taskbench.measure.compare import comparable, compare_rows, warnings
from taskbench.report.tables import metg_label


def add_parser(subparsers, common):
    p = subparsers.add_parser("compare", parents=[common], help="compare the METGs of two campaigns")
    p.add_argument("a", help="campaign name (the baseline)")
    p.add_argument("b", help="campaign name")
    p.add_argument("--allow-unreliable", action="store_true",
                   help="draw the B/A ratio from METGs their campaign marked unreliable too (marked so)")
    return p


def compare_fit(threshold: float) -> Fit:
    # The graphs are the campaigns': the title says them on a terminal.
    label = metg_label(threshold)
    return Fit(short={f"{label} A": "METG A", f"{label} B": "METG B"},
               tsv_only=("A pattern/kernel", "B pattern/kernel"))


def main(args, ctx) -> int:
    ctx.read_only = True
    a, b = analyze(ctx.store, args.a), analyze(ctx.store, args.b)
    comparable(a, b)
    label = metg_label(a.params.threshold)
    raw = ctx.console.quiet
    ratio_columns = ["B/A", "B/A low", "B/A high"] if raw else ["B/A"]
    columns = ["system", "A pattern/kernel", "B pattern/kernel", f"{label} A", f"{label} B", *ratio_columns, "A and B"]
    rows, refusals = compare_rows(a, b, args.allow_unreliable, raw)
    ctx.console.table(f"{label}: {a.name} (A, {a.params.pattern}/{a.params.kernel}) vs {b.name} "
                      f"(B, {b.params.pattern}/{b.params.kernel})", columns, rows,
                      compare_fit(a.params.threshold))
    for line in warnings(a, b) + refusals:
        ctx.console.warn(line)
    return EXIT_UNRELIABLE if refusals else EXIT_OK
