"""`taskbench compare A B`: two stored METG campaigns side by side, B/A per system and pattern."""

from __future__ import annotations

from taskbench import units
from taskbench.errors import EXIT_OK, EXIT_USAGE, UserError
from taskbench.measure.analysis import analyze


def add_parser(subparsers, common):
    p = subparsers.add_parser("compare", parents=[common], help="compare the METGs of two campaigns")
    p.add_argument("a", help="campaign name (the baseline)")
    p.add_argument("b", help="campaign name")
    return p


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
    a, b = analyze(ctx.store, args.a), analyze(ctx.store, args.b)
    for c in (a, b):
        if c.campaign["kind"] != "metg":
            raise UserError(f"campaign '{c.name}' is a {c.campaign['kind']} campaign, not metg", EXIT_USAGE)
    label = f"METG({a.params.threshold:.0%})"
    ctx.console.table(f"{a.name} (A) vs {b.name} (B)",
                      ["system", "A pattern/kernel", "B pattern/kernel", f"{label} A", f"{label} B", "B/A"],
                      compare_rows(a, b))
    if a.params.threshold != b.params.threshold:
        ctx.console.warn("the campaigns use different thresholds")
    return EXIT_OK
