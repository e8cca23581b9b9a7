"""`taskbench report [--html FILE]`: the paper's figures and tables from the stored campaigns."""

from __future__ import annotations

from taskbench import report
from taskbench.commands.options import positive_int
from taskbench.errors import EXIT_OK
from taskbench.reference import published


def add_parser(subparsers, common):
    p = subparsers.add_parser("report", parents=[common], help="figures and an HTML page from stored runs")
    p.add_argument("--html", default="taskbench-report.html", help="the HTML page (taskbench-report.html)")
    p.add_argument("--campaign", action="append", help="only these campaigns (repeatable; default: all)")
    p.add_argument("--reference", choices=published.CHOICES,
                   help="also show the paper's published METG beside each METG campaign, apart (docs/reference.md)")
    p.add_argument("--reference-nodes", type=positive_int, action="append", metavar="N",
                   help="the node counts of the published figures (repeatable; default 1)")
    return p


def main(args, ctx) -> int:
    ctx.read_only = True
    report.check_html_path(args.html, ctx.console)
    written = report.write_report(ctx.store, args.html, args.campaign, ctx.console,
                                  (args.reference_nodes or [1]) if args.reference else None)
    ctx.console.note(f"report: {written}")
    return EXIT_OK
