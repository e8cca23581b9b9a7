"""The frame every figure shares: matplotlib without a display (the Agg backend, chosen here
before anything of matplotlib is drawn), the figure with room for the legend under its axes, log
axes with SI units, the marks of an unreliable METG and what a figure's marks mean."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

from matplotlib.ticker import EngFormatter, NullFormatter  # noqa: E402

_MARKERS = "osD^v<>pPX*h"
# Text that annotates rather than names a system (the peak line's label): 6:1 on white.
NOTE_GREY = "#5f5f5f"
# An unreliable METG's label and ring: the report's .unreliable red.
UNRELIABLE_COLOR = "#b00020"
# A one-core reference's bar (serial): apart from every system's own colour.
REFERENCE_GREY = "#9e9e9e"


def style(i: int) -> dict:
    return {"marker": _MARKERS[i % len(_MARKERS)], "markersize": 4, "linewidth": 1.2}


def new_figure(width: float, height: float) -> Figure:
    """A figure whose layout leaves room for the titles, colour bars and the legend outside the axes."""
    return Figure(figsize=(width, height), layout="constrained")


def legend_below(fig, axes, fontsize: int = 7) -> None:
    """One legend for the figure, under its axes: never over the data, which a curve can cross
    anywhere. A label several panels share appears once. Needs new_figure's layout."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    if not entries:
        return
    # As many columns as the figure's width holds: ~0.6 em a character, plus the marker and a gap.
    longest = max(len(label) for label in entries)
    columns = max(1, min(len(entries), int(fig.get_figwidth() * 72 // (longest * fontsize * 0.6 + 4 * fontsize))))
    # The figure grows by the legend's rows (~1.5 em each), so that many systems leave the axes their size.
    rows = -(-len(entries) // columns)
    fig.set_figheight(fig.get_figheight() + rows * fontsize * 1.5 / 72)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=columns,
               fontsize=fontsize, frameon=False)


def ring_unreliable(ax, xs, ys) -> None:
    """A red ring around each point whose METG is unreliable (the tables' mark, on a figure), and
    its legend entry once per axes."""
    if not len(xs):
        return
    ring = {"linestyle": "none", "marker": "o", "markersize": 11, "markerfacecolor": "none",
            "markeredgecolor": UNRELIABLE_COLOR}
    ax.plot(xs, ys, **ring)
    if not getattr(ax, "_taskbench_unreliable_legend", False):
        ax.plot([], [], label="unreliable METG", **ring)
        ax._taskbench_unreliable_legend = True


def log_axis(ax, axis: str, label: str, unit: str) -> None:
    """A log axis whose ticks carry the unit with an SI prefix (10 µs, 1 GFLOP/s)."""
    getattr(ax, f"set_{axis}scale")("log")
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(EngFormatter(unit=unit))
    target.set_minor_formatter(NullFormatter())  # "6x10^-8" between "10 ns" and "100 ns" only confuses
    getattr(ax, f"set_{axis}label")(f"{label} (log scale)")


def spread_note(reps: int, mark: str, spread: str) -> str:
    """What a figure's marks mean, e.g. "line: median, band: range over 3 repetitions"; one
    repetition has no median and no range to speak of."""
    if reps > 1:
        return f"{mark}: median, {spread}: range over {reps} repetitions"
    return f"{mark}: 1 repetition"
