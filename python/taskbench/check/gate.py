"""What `taskbench check` measures and how it judges. Per system it compares a candidate (this
build) with a baseline on three metrics, smaller is better: the time per task with the empty
kernel (pure overhead), the time per task at a small grain (compute_bound, -iter 1024), and
METG(50%). The baseline is another build's binaries (--baseline-build DIR, as NAME@baseline),
another suite's port (--baseline-external), or a file a previous check saved (--baseline FILE).
With a build or a port, both sides run interleaved, run by run, in one window: a slow minute of
the machine hits both, which no stored figure can offer. The METGs pair as the grains' runs do:
both sides run one grid of sizes (sampling.py, the runs).

The verdicts come from regression.py (exact rank tests, Hodges-Lehmann intervals, Holm). A cell
inconclusive only for its interval's width gets more sets of repetitions; a cell judged regressed
or improved is measured once more, and its verdict stands only if the new repetitions alone say
the same (verdicts.py)."""

from __future__ import annotations

import copy
from pathlib import Path

from taskbench.check.sampling import FULL, QUICK, Sampler
from taskbench.check.verdicts import Cell, confirm, extend, judge
from taskbench.errors import EXIT_USAGE, UserError
from taskbench.measure.sweep import campaign
from taskbench.registry.catalog import Registry
from taskbench.registry.external import add_externals, externals_from_specs
from taskbench.registry.locations import find_layout

BASELINE_SUFFIX = "@baseline"  # a baseline build's system, beside the candidate's in one campaign


def run(ctx, pairs: list[tuple[str, str | None]], pattern: str, width: int, quick: bool, metg: bool,
        threshold: float, stored: dict | None) -> tuple[str, dict, list[Cell]]:
    """The check campaign of `pairs`, created and claimed, measured and judged, then finished:
    (its name, its config, its cells)."""
    name = campaign.new_name(ctx.store, "check", pattern)
    config = {"pattern": pattern, "width": width, "preset": "quick" if quick else "full",
              "metg": bool(metg), "pairs": pairs}
    ctx.store.claim(name)
    campaign.create(ctx.store, name, "check", {"systems": [s for pair in pairs for s in pair if s], **config},
                    ctx.git_revision)
    ctx.console.note(f"check {name}: {', '.join(_pair_text(c, b) for c, b in pairs)}; {pattern}, {width} wide, "
                     f"threshold {threshold:.0%}; stored in {ctx.store.path}")
    sampler = Sampler(ctx, name, pattern, width, QUICK if quick else FULL)
    cells = sampler.all(pairs, metg, stored)
    judge(cells, threshold)
    extend(cells, threshold, sampler.measure, stored)
    confirm(cells, threshold, sampler.measure, stored)
    ctx.store.finish_campaign(name)
    return name, config, cells


def _pair_text(candidate: str, baseline: str | None) -> str:
    return f"{candidate} vs {baseline}" if baseline else candidate


def pairs(registry, systems: list[str], stored: dict | None, *, external: str | None = None,
          baseline_external: str | None = None, baseline_build: str | None = None,
          baseline_file: str | None = None) -> list[tuple[str, str | None]]:
    """(candidate, baseline) system names, from the options' systems and specs; the baseline None
    where only the candidate is measured (--save-baseline alone) or where the file holds it
    (--baseline, `stored`)."""
    candidates = list(systems)
    if external:
        externals = externals_from_specs([external])
        add_externals(registry, externals)
        candidates += externals
    if baseline_external:
        if len(candidates) != 1:
            raise UserError("--baseline-external: name exactly one candidate system (or --external) to compare it "
                            "with", EXIT_USAGE)
        specs = externals_from_specs([baseline_external])
        add_externals(registry, specs)
        (baseline,) = specs
        return [(candidates[0], baseline)]
    if stored is not None:
        saved = list(dict.fromkeys(c["system"] for c in stored["cells"]))
        candidates = candidates or saved
        missing = [c for c in candidates if c not in saved]
        if missing:
            raise UserError(f"--baseline {baseline_file}: no figures of {', '.join(missing)} in it (it has "
                            f"{', '.join(saved)})", EXIT_USAGE)
    if not candidates:
        candidates = [s.name for s in registry.defaults() if s.available]
        if not candidates:
            raise UserError("no default system is available (see `taskbench systems`)", EXIT_USAGE)
    for name in candidates:
        registry.require_available(name)
    if not baseline_build:
        return [(c, None) for c in candidates]
    return [(c, _baseline_system(registry, baseline_build, c)) for c in candidates]


def _baseline_system(registry, build_dir: str, name: str) -> str:
    """The system `name` as the baseline build has it, added to the registry as NAME@baseline:
    this checkout's registry entry, the other build's binary."""
    layout = find_layout(build_dir)
    if layout.bin_dir is None:
        raise UserError(f"--baseline-build {build_dir}: no executables there (build it first)", EXIT_USAGE)
    other = Registry(layout).get(name)
    if not other.available:
        raise UserError(f"--baseline-build {build_dir}: {name} cannot run from it: {other.reason}", EXIT_USAGE)
    # the same file however it is reached: a build folder behind a symlink (a worktree's) is no other build
    if Path(other.binary_path).resolve() == Path(registry.get(name).binary_path).resolve():
        raise UserError(f"--baseline-build {build_dir}: the same binary as the candidate's ({other.binary_path}): "
                        "give another build", EXIT_USAGE)
    baseline = copy.copy(other)
    baseline.name = name + BASELINE_SUFFIX
    registry.systems[baseline.name] = baseline
    return baseline.name
