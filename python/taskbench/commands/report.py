"""`taskbench report [--html FILE]`: the paper's figures and tables from the stored campaigns."""

from __future__ import annotations

from taskbench import report
from taskbench.errors import EXIT_OK


def add_parser(subparsers, common):
    p = subparsers.add_parser("report", parents=[common], help="figures and an HTML page from stored runs")
    p.add_argument("--html", default="taskbench-report.html", help="the HTML page (taskbench-report.html)")
    p.add_argument("--campaign", action="append", help="only these campaigns (repeatable; default: all)")
    return p


def main(args, ctx) -> int:
    ctx.read_only = True
    written = report.write_report(ctx.store, args.html, args.campaign, ctx.console)
    ctx.console.note(f"report: {written}")
    return EXIT_OK
