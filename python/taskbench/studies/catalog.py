"""Every study preset by name (`taskbench study NAME`). Adding one: its preset module, its figure
in figures.py, and its place in PRESETS."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError, did_you_mean
from taskbench.studies import discovery, gpu_offload, imbalance, scaling, taskbench_paper
from taskbench.studies.metg_preset import MetgStudy
from taskbench.studies.preset import Study

PRESETS: dict[str, Study | MetgStudy] = {
    s.name: s for s in (imbalance.STUDY, discovery.STUDY, *taskbench_paper.STUDIES, scaling.STUDY, gpu_offload.STUDY)}


def get(name: str) -> Study | MetgStudy:
    if name not in PRESETS:
        raise UserError(f"unknown study '{name}'{did_you_mean(name, PRESETS)} (known: {', '.join(PRESETS)}; "
                        "`taskbench study --list`)", EXIT_USAGE)
    return PRESETS[name]
