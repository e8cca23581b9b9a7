"""What a METG study is: one METG sweep (a campaign of kind "metg") per value of one parameter
(dependencies per task, pattern, output bytes...), every sweep over the same systems, and METG
per system per value as the result: the Task Bench paper's figures 7, 9, 10 and 11.

Grid studies (studies/preset.py) store runs; a METG study stores sweeps, because METG is not one
run but the adaptive search of measure/sweep/adaptive.py over problem sizes.

A preset's sweeps are a pure function of (quick, cores): the parent campaign stores the sweeps it
planned, so a resumed study replays exactly the same ones even if the preset changes later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from taskbench import plots, units
from taskbench.studies import metg_results
from taskbench.studies.preset import paper_systems

# Engines whose per-run start-up (a cluster, a JVM, a Python process pool) costs seconds (registry
# key `heavy`): in --quick their sweeps run this many times fewer timesteps, in a campaign of their
# own (printed, and stored).
HEAVY_QUICK_STEPS_DIVISOR = 4


@dataclass(frozen=True)
class Sweep:
    """One value of the study's parameter: the SweepParams fields it sets (besides systems)."""
    value: int | float | str  # the x of the figure and the table's column
    label: str  # names the campaign, e.g. "radix3"; letters, digits, '_' only
    settings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MetgStudy:
    name: str
    title: str
    figure_number: str  # the paper's figure this reproduces, e.g. "Fig. 10"
    paper: str  # the citation (authors, "title", venue, figure) and its finding
    parameter: str  # the figure's x axis / the table's column header
    default_systems: Callable  # (registry) -> list of system names, in table order
    sweeps: Callable[[bool, int], list[Sweep]]  # (quick, cores) -> the values, in axis order
    reps: int = 3  # repetitions of every curve (and more near the crossing, measure/sweep/settle.py)
    quick_reps: int = 1
    log_axis: bool = False  # draw the parameter on a log scale (bytes)
    categorical: bool = False  # the values are names (patterns), not numbers
    full_minutes: str = ""  # the full run's measured or estimated time, for --list
    # The paper's own series for this figure, drawn beside the measured ones, labelled as
    # published: (paper systems) -> [(label, [(value, METG seconds)])] (taskbench.reference.published):
    # the series of the paper rows the study's systems run (published.study_systems).
    published: Callable | None = None
    # Under --simulate (studies/simulated_study.py): the values a full simulated study runs (all
    # where empty), and the paper's series at one node count, (values, nodes, paper systems) ->
    # [(label, [(value, METG seconds)])]; None where the paper published none by node count.
    simulated_values: tuple = ()
    published_at_nodes: Callable | None = None
    kind: str = field(default="metg", init=False)

    # The report's study section (report/study_sections.py) asks every preset for these three.
    # A result run under --simulate is shown by simulated_study.shown_as's view instead.
    def table(self, result, figures: units.Figures = units.READABLE) -> tuple[list[str], list[list]]:
        return metg_results.table(result, self.parameter, figures)

    def findings(self, result) -> list[str]:
        return ([f"paper: {self.paper}"] + list(result.params.get("notes") or [])
                + metg_results.ratio_findings(result, self.parameter))

    def figure(self, result):
        curves = {system: metg_results.series(result, system) for system in result.systems}
        return plots.metg_vs_parameter(result, self, curves,
                                       self.published(paper_systems(result)) if self.published else [])


# The sweep settings every METG study shares, full and --quick. Full: repetitions added near
# each crossing until the METG's interval is within 5% (measure/sweep/settle.py), as `taskbench metg`.
# Quick: one repetition, one try per size, coarse refinement, no re-check rounds, none added, the
# METG one curve's crossing, with no interval; and the sweep starts at -iter 16384 (~40 us tasks
# here, efficient for every compiled system) instead of 65536: the planner still goes up first
# where that size is not clearly efficient.
FULL_SWEEP = {"kernel": "compute_bound", "steps": 1000, "threshold": 0.5, "tries": 3, "refine_points": 3,
              "rechecks": 2}
QUICK_SWEEP = {"kernel": "compute_bound", "steps": 100, "threshold": 0.5, "tries": 1, "refine_points": 1,
               "rechecks": 0, "start_iter": 1 << 14, "target_interval": 0.0}


def base_settings(quick: bool) -> dict:
    return dict(QUICK_SWEEP if quick else FULL_SWEEP)
