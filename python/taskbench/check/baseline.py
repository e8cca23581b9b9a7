"""The file `taskbench check --save-baseline` writes and `--baseline` reads. A time per task
means something only on the machine and build configuration that measured it, so the file
carries both, and a read refuses figures from another unless asked to compare anyway.
"""

from __future__ import annotations

import json
from pathlib import Path

from taskbench import provenance
from taskbench.errors import EXIT_USAGE, UserError

BASELINE_FORMAT = 1  # of a --save-baseline file


def _machine_facts(ctx) -> dict:
    machine = provenance.machine()
    info = ctx.layout.build_info
    return {"machine_id": provenance.machine_id(machine), "machine": machine,
            "build": {"git_revision": ctx.git_revision, "build_type": info.get("build_type"),
                      "sanitize": info.get("sanitize")}}


def write_baseline(path: str, ctx, config: dict, cells: list) -> None:
    """The candidate's values of each cell (check/verdicts.Cell), with the check's settings."""
    document = {"taskbench_check_baseline": BASELINE_FORMAT, **_machine_facts(ctx),
                "config": {k: v for k, v in config.items() if k != "pairs"},
                "cells": [{"system": c.system, "metric": c.metric, "values": c.candidate_values} for c in cells]}
    Path(path).write_text(json.dumps(document, indent=2) + "\n")


def read_baseline(path: str, ctx, allow_other_machine: bool) -> dict:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise UserError(f"--baseline {path}: cannot read it ({exc.strerror})", EXIT_USAGE)
    try:
        document = json.loads(text)
    except ValueError as exc:  # json's own words alone ("Expecting value: line 1 column 3") say nothing of why
        raise UserError(f"--baseline {path}: not a baseline file (a JSON file that `taskbench check --save-baseline "
                        f"FILE` writes; this one is not JSON: {exc})", EXIT_USAGE)
    if not isinstance(document, dict) or document.get("taskbench_check_baseline") != BASELINE_FORMAT:
        raise UserError(f"--baseline {path}: not a baseline of this version (write one with --save-baseline)",
                        EXIT_USAGE)
    here = _machine_facts(ctx)
    differs = [what for what, theirs, ours in (
        ("machine", document.get("machine_id"), here["machine_id"]),
        ("build type", (document.get("build") or {}).get("build_type"), here["build"]["build_type"]),
        ("sanitizers", (document.get("build") or {}).get("sanitize"), here["build"]["sanitize"])) if theirs != ours]
    if differs and not allow_other_machine:
        raise UserError(f"--baseline {path}: written on another {' and '.join(differs)} "
                        f"({document.get('machine_id')}); its figures do not compare with this one's "
                        "(--allow-other-machine compares anyway)", EXIT_USAGE)
    return document
