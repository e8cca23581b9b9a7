"""`taskbench check`: did this change make small tasks slower? A regression gate for runtime
developers' CI (docs/regression-gate.md; what it measures and how it judges: check/gate.py). Exit
0: nothing regressed; 1: something did; 5: no regression seen, but some answer is inconclusive.
This module is the command: its arguments, and what it prints and writes (check/outputs.py, and
the baseline file of check/baseline.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from taskbench import provenance
from taskbench.check import gate, regression
from taskbench.check import outputs as check_outputs
from taskbench.check.baseline import read_baseline, write_baseline
from taskbench.check.sampling import MIN_THRESHOLD
from taskbench.check.verdicts import Cell
from taskbench.commands.options import pattern_help
from taskbench.errors import EXIT_OK, EXIT_REGRESSED, EXIT_UNRELIABLE, EXIT_USAGE, UserError


def add_parser(subparsers, common):
    p = subparsers.add_parser(
        "check", parents=[common], help="regression gate: this build against a baseline (exit 1: regressed)",
        epilog="exit codes: 0 nothing regressed, 1 a metric regressed, 5 inconclusive (noise, a failed run, or too "
               "few repetitions to tell), 2 usage, 4 environment; docs/regression-gate.md")
    p.add_argument("systems", nargs="*", help="systems to check (default: the baseline file's, else the registry's "
                                              "default systems)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--baseline-build", metavar="DIR",
                       help="another build folder (e.g. the pull request's base): its binaries run interleaved with "
                            "this build's")
    where.add_argument("--baseline-external", metavar="NAME=CORES:COMMAND",
                       help="another suite's port as the baseline of the one system named, run interleaved")
    where.add_argument("--baseline", metavar="FILE", help="a file written by --save-baseline")
    p.add_argument("--save-baseline", metavar="FILE",
                   help="write the candidate's figures to FILE for a later --baseline")
    p.add_argument("--allow-other-machine", action="store_true",
                   help="compare with a baseline file from another machine or build configuration")
    p.add_argument("--external", metavar="NAME=CORES:COMMAND", help="the candidate is another suite's port")
    p.add_argument("--quick", action="store_true",
                   help="fewer and shorter repetitions (measured: a median of 42 s, 39-90 s, for one unchanged "
                        "system on a quiet 2-core VM; twice that where a cell is flagged)")
    p.add_argument("--threshold", type=float, default=5.0,
                   help=f"smallest change in percent that counts (5; at least {MIN_THRESHOLD * 100:.4f}%%, the "
                        "metrics' resolution)")
    p.add_argument("--pattern", default="stencil_1d", metavar="PATTERN", help=pattern_help("stencil_1d"))
    p.add_argument("--width", type=int, help="points per timestep (default: the cores available)")
    p.add_argument("--no-metg", dest="metg", action="store_false", help="the fixed grains only (seconds, not minutes)")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON (see --json-format)")
    p.add_argument("--json-format", choices=check_outputs.JSON_FORMATS,
                   help="github-action-benchmark (customSmallerIsBetter, the default) or bencher (Bencher Metric "
                        "Format)")
    return p


def _validate(args) -> float:
    threshold = args.threshold / 100
    if threshold < MIN_THRESHOLD:
        raise UserError(f"--threshold {args.threshold:g}: below {MIN_THRESHOLD:.4%}, finer than METG(50%) resolves "
                        "(docs/regression-gate.md, the metrics' resolution)", EXIT_USAGE)
    if args.json_format and not args.json:
        raise UserError(f"--json-format {args.json_format}: give --json FILE too", EXIT_USAGE)
    if args.width is not None and args.width <= 0:
        raise UserError(f"--width {args.width}: must be positive", EXIT_USAGE)
    available = provenance.available_cores()
    if args.width is not None and args.width > available:
        # Each side runs on one core per point: beyond the cores, threads would share them and
        # the figures would measure that (an --external side keeps its own core count).
        raise UserError(f"--width {args.width}: check runs each system on one core per point, and {available} "
                        f"cores are available here", EXIT_USAGE)
    if not (args.baseline_build or args.baseline_external or args.baseline or args.save_baseline):
        raise UserError("name a baseline: --baseline-build DIR, --baseline-external NAME=CORES:COMMAND or --baseline "
                        "FILE (or --save-baseline FILE to write one)", EXIT_USAGE)
    return threshold


def main(args, ctx) -> int:
    threshold = _validate(args)
    width = args.width or provenance.available_cores()
    stored = read_baseline(args.baseline, ctx, args.allow_other_machine) if args.baseline else None
    paired = gate.pairs(ctx.registry, args.systems, stored, external=args.external,
                        baseline_external=args.baseline_external, baseline_build=args.baseline_build,
                        baseline_file=args.baseline)
    name, config, cells = gate.run(ctx, paired, args.pattern, width, args.quick, args.metg, threshold, stored)
    if args.save_baseline:
        write_baseline(args.save_baseline, ctx, config, cells)
        ctx.console.note(f"baseline written: {args.save_baseline}")
    compared = [c for c in cells if c.baseline]
    # With the campaign, for the report's section on checks (report/check_sections.py).
    ctx.store.set_campaign_results(name, {"threshold": threshold, "columns": check_outputs.COLUMNS,
                                          "verdicts": check_outputs.rows(compared)})
    if compared:
        title = (f"taskbench check: candidate vs baseline, {args.pattern}, {width} wide, threshold {threshold:.0%} "
                 f"(ratio candidate / baseline; smaller is better)")
        ctx.console.table(title, check_outputs.COLUMNS, check_outputs.rows(compared))
    if args.markdown:
        Path(args.markdown).write_text(check_outputs.markdown(compared, threshold, args.pattern, width))
    if args.json:
        document = check_outputs.json_document(cells, args.json_format or check_outputs.JSON_FORMATS[0])
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n")
    return _exit_status(ctx, compared)


def _exit_status(ctx, cells: list[Cell]) -> int:
    regressed = [c for c in cells if c.verdict == regression.REGRESSED]
    inconclusive = [c for c in cells if c.verdict == regression.INCONCLUSIVE]
    for c in regressed:
        ctx.console.warn(f"REGRESSED: {c.system}, {c.metric}: {c.why}")
    if regressed:
        return EXIT_REGRESSED
    if inconclusive:
        ctx.console.warn(f"inconclusive: {', '.join(f'{c.system} ({c.metric})' for c in inconclusive)}: "
                         f"exit status {EXIT_UNRELIABLE} (docs/regression-gate.md, Inconclusive)")
        return EXIT_UNRELIABLE
    return EXIT_OK
