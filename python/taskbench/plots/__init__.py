"""The paper's figures from campaign analyses and studies (matplotlib, Agg backend: no display
needed, chosen once, in frame.py, which every figure module imports first).

Fig. 6  throughput vs problem size            one per METG campaign
Fig. 7  efficiency vs task granularity         one per METG campaign, threshold line, METG marks
METG bars                                      one per METG campaign: which system is fastest at small tasks
Curves are the median over repetitions with a shaded band for their range; every system has
the colour colors.color_for gives it, in every figure.
Fig. 9  METG vs nodes                          campaigns of one pattern at several node counts
Fig. 10 METG vs dependencies per task          nearest-pattern campaigns with different radix
The studies' figures (study_figures.py)        one per study, from the data its module reads
Every function returns a matplotlib Figure, or None when the data cannot make that figure; the
Fig. 9 / 10 functions return the figures they can make as (name, draw) pairs, drawn later.
Legends sit under the axes (legend_below), never over the data.
"""

import importlib

# What each name is re-exported from: imported on first use (PEP 562), so that a report whose
# figures are all drawn already (report/figure_cache.py) never loads matplotlib.
_FROM = {"metg_vs_dependencies": "across_campaigns", "metg_vs_nodes": "across_campaigns",
         "efficiency_vs_granularity": "campaign_figures", "metg_bars": "campaign_figures",
         "throughput_vs_size": "campaign_figures", "NOTE_GREY": "frame", "REFERENCE_GREY": "frame",
         "UNRELIABLE_COLOR": "frame", "legend_below": "frame", "log_axis": "frame", "new_figure": "frame",
         "ring_unreliable": "frame", "spread_note": "frame", "style": "frame",
         **dict.fromkeys(("discovery_per_task", "flops_vs_normalized_size", "imbalance_cost", "metg_vs_parameter",
                          "simulated_metg_vs_parameter", "weak_and_strong_scaling"), "study_figures")}

__all__ = sorted(_FROM)


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
