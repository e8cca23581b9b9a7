"""`taskbench check`: did this change make small tasks slower? A regression gate for runtime
developers' CI (docs/regression-gate.md).

Per system it compares a candidate (this build) with a baseline on three metrics, smaller is
better: the time per task with the empty kernel (pure overhead), the time per task at a small
grain (compute_bound, -iter 1024), and METG(50%). The baseline is another build's binaries
(--baseline-build DIR), another suite's port (--baseline-external), or a file a previous check
saved (--baseline FILE). With a build or a port, both sides run interleaved, run by run, in one
window: a slow minute of the machine hits both, which no stored figure can offer. The METGs pair
as the grains' runs do: both sides run one grid of sizes (check/sampling.py, the runs).

The verdicts come from check/regression.py (exact rank tests, Hodges-Lehmann intervals, Holm).
A cell inconclusive only for its interval's width gets more sets of repetitions; a cell judged
regressed or improved is measured once more, and its verdict stands only if the new repetitions
alone say the same (check/verdicts.py). Exit 0: nothing regressed; 1: something did; 5:
no regression seen, but some answer is inconclusive. This module is the command: its arguments,
the systems it pairs, and what it prints and writes (check/outputs.py, and the baseline
file of check/baseline.py).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from taskbench import provenance
from taskbench.commands.options import pattern_help
from taskbench.errors import EXIT_OK, EXIT_REGRESSED, EXIT_UNRELIABLE, EXIT_USAGE, UserError
from taskbench.measure.sweep import campaign
from taskbench.check import regression
from taskbench.check.baseline import read_baseline, write_baseline
from taskbench.check.sampling import FULL, MIN_THRESHOLD, QUICK, Sampler
from taskbench.check.verdicts import Cell, confirm, extend, judge
from taskbench.registry.catalog import Registry
from taskbench.registry.external import add_externals, externals_from_specs
from taskbench.registry.locations import find_layout
from taskbench.check import outputs as check_outputs

BASELINE_SUFFIX = "@baseline"  # a baseline build's system, beside the candidate's in one campaign


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
    p.add_argument("--save-baseline", metavar="FILE", help="write the candidate's figures to FILE for a later --baseline")
    p.add_argument("--allow-other-machine", action="store_true",
                   help="compare with a baseline file from another machine or build configuration")
    p.add_argument("--external", metavar="NAME=CORES:COMMAND", help="the candidate is another suite's port")
    p.add_argument("--quick", action="store_true", help="fewer and shorter repetitions (measured: a median of 42 s, 39-90 s, for one unchanged "
                        "system on a quiet 2-core VM; twice that where a cell is flagged)")
    p.add_argument("--threshold", type=float, default=5.0,
                   help=f"smallest change in percent that counts (5; at least {MIN_THRESHOLD * 100:.4f}%%, the metrics' "
                        "resolution)")
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
    preset = QUICK if args.quick else FULL
    width = args.width or provenance.available_cores()
    stored = read_baseline(args.baseline, ctx, args.allow_other_machine) if args.baseline else None
    pairs = _pairs(args, ctx, stored)
    name = campaign.new_name(ctx.store, "check", args.pattern)
    config = {"pattern": args.pattern, "width": width, "preset": "quick" if args.quick else "full",
              "metg": bool(args.metg), "pairs": pairs}
    ctx.store.claim(name)
    campaign.create(ctx.store, name, "check", {"systems": [s for pair in pairs for s in pair if s], **config},
                    ctx.git_revision)
    ctx.console.note(f"check {name}: {', '.join(_pair_text(c, b) for c, b in pairs)}; {args.pattern}, {width} wide, "
                     f"threshold {threshold:.0%}; stored in {ctx.store.path}")
    sampler = Sampler(ctx, name, args.pattern, width, preset)
    cells = sampler.all(pairs, args.metg, stored)
    judge(cells, threshold)
    extend(cells, threshold, sampler.measure, stored)
    confirm(cells, threshold, sampler.measure, stored)
    ctx.store.finish_campaign(name)
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


def _pair_text(candidate: str, baseline: str | None) -> str:
    return f"{candidate} vs {baseline}" if baseline else candidate


def _pairs(args, ctx, stored: dict | None) -> list[tuple[str, str | None]]:
    """(candidate, baseline) system names; the baseline None where only the candidate is measured
    (--save-baseline alone) or where the file holds it (--baseline)."""
    registry = ctx.registry
    candidates = list(args.systems)
    if args.external:
        externals = externals_from_specs([args.external])
        add_externals(registry, externals)
        candidates += externals
    if args.baseline_external:
        if len(candidates) != 1:
            raise UserError("--baseline-external: name exactly one candidate system (or --external) to compare it "
                            "with", EXIT_USAGE)
        specs = externals_from_specs([args.baseline_external])
        add_externals(registry, specs)
        (baseline,) = specs
        return [(candidates[0], baseline)]
    if stored is not None:
        saved = list(dict.fromkeys(c["system"] for c in stored["cells"]))
        candidates = candidates or saved
        missing = [c for c in candidates if c not in saved]
        if missing:
            raise UserError(f"--baseline {args.baseline}: no figures of {', '.join(missing)} in it (it has "
                            f"{', '.join(saved)})", EXIT_USAGE)
    if not candidates:
        candidates = [s.name for s in registry.defaults() if s.available]
        if not candidates:
            raise UserError("no default system is available (see `taskbench systems`)", EXIT_USAGE)
    for name in candidates:
        registry.require_available(name)
    if not args.baseline_build:
        return [(c, None) for c in candidates]
    return [(c, _baseline_system(registry, args.baseline_build, c)) for c in candidates]


def _baseline_system(registry, build_dir: str, name: str) -> str:
    """The system `name` as the baseline build has it, added to the registry as NAME@baseline:
    this checkout's registry entry, the other build's binary."""
    layout = find_layout(build_dir)
    if layout.bin_dir is None:
        raise UserError(f"--baseline-build {build_dir}: no executables there (build it first)", EXIT_USAGE)
    other = Registry(layout).get(name)
    if not other.available:
        raise UserError(f"--baseline-build {build_dir}: {name} cannot run from it: {other.reason}", EXIT_USAGE)
    if other.binary_path == registry.get(name).binary_path:
        raise UserError(f"--baseline-build {build_dir}: the same binary as the candidate's ({other.binary_path}): "
                        "give another build", EXIT_USAGE)
    baseline = copy.copy(other)
    baseline.name = name + BASELINE_SUFFIX
    registry.systems[baseline.name] = baseline
    return baseline.name


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
