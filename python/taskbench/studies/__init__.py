"""Study presets: one command each (`taskbench study NAME`), a fixed grid of runs reproducing a
paper's figure, stored as a campaign of kind "study" and drawn in the report.

Adding a study: a module here with a `STUDY` (studies/preset.py says what it holds), its
figure in studies/figures.py, and one line in PRESETS below.
"""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.studies import discovery, imbalance
from taskbench.studies.preset import Study

PRESETS: dict[str, Study] = {s.name: s for s in (imbalance.STUDY, discovery.STUDY)}


def get(name: str) -> Study:
    if name not in PRESETS:
        raise UserError(f"unknown study '{name}' (known: {', '.join(PRESETS)}; `taskbench study --list`)",
                        EXIT_USAGE)
    return PRESETS[name]
