"""Study presets: one command each (`taskbench study NAME`), a fixed grid of runs reproducing a
paper's figure, stored as a campaign of kind "study" and drawn in the report.

Two kinds: grid studies (studies/preset.py: a fixed grid of runs, e.g. `imbalance`) and METG
studies (studies/metg_preset.py: a METG sweep per value of one parameter, the Task Bench paper's
figures, studies/taskbench_paper.py). Adding one: its preset, its figure in studies/figures.py,
and one entry in PRESETS below.
"""

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
