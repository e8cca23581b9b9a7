"""The paper's figures from campaign analyses (matplotlib, Agg backend: no display needed).

Fig. 6  throughput vs problem size            one per METG campaign
Fig. 7  efficiency vs task granularity         one per METG campaign, threshold line, METG marks
METG bars                                      one per METG campaign: which system is fastest at small tasks
Curves are the median over repetitions with a shaded band for their range; every system has
the colour colors.color_for gives it, in every figure.
Fig. 9  METG vs nodes                          campaigns of one pattern at several node counts
Fig. 10 METG vs dependencies per task          nearest-pattern campaigns with different radix
Every function returns a matplotlib Figure, or None when the data cannot make that figure; the
Fig. 9 / 10 functions return the figures they can make as (name, draw) pairs, drawn later.
Legends sit under the axes (legend_below), never over the data.
"""

from taskbench.plots.across_campaigns import metg_vs_dependencies, metg_vs_nodes
from taskbench.plots.campaign_figures import efficiency_vs_granularity, metg_bars, throughput_vs_size
from taskbench.plots.frame import (NOTE_GREY, REFERENCE_GREY, UNRELIABLE_COLOR, legend_below, log_axis, new_figure,
                                   ring_unreliable, spread_note, style)

__all__ = ["NOTE_GREY", "REFERENCE_GREY", "UNRELIABLE_COLOR", "efficiency_vs_granularity", "legend_below", "log_axis",
           "metg_bars", "metg_vs_dependencies", "metg_vs_nodes", "new_figure", "ring_unreliable", "spread_note",
           "style", "throughput_vs_size"]
