"""Study presets: one command each (`taskbench study NAME`), a fixed grid of runs reproducing a
paper's figure, stored as a campaign of kind "study" and drawn in the report.

This package is the machinery; the presets themselves are in presets/. Two kinds: grid studies
(preset.py: a fixed grid of runs, e.g. `imbalance`, and which systems play its roles) and METG
studies (metg_preset.py: a METG sweep per value of one parameter, the Task Bench paper's figures,
presets/taskbench_paper.py). A study names roles, never systems: the registry says which systems
play them. execute.py lists the presets by name and plans and runs them (the METG sweeps with
metg_execute.py, on a simulated platform with simulated_study.py), results.py and metg_results.py
read them back; their figures are drawn in plots/study_figures.py.
"""

from taskbench.studies.execute import PRESETS, get

__all__ = ["PRESETS", "get"]
