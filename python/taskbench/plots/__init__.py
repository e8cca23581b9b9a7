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

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Callable

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

from matplotlib.ticker import EngFormatter, NullFormatter  # noqa: E402

from taskbench import units  # noqa: E402
from taskbench.measure.kernels import unit  # noqa: E402
from taskbench.plots.colors import color_for, text_color_for  # noqa: E402

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


def _band(ax, xs, low, mid, high, system: str, label: str) -> None:
    """The median line of one system and a shaded band for the range over repetitions."""
    color = color_for(system)
    ax.fill_between(xs, low, high, color=color, alpha=0.18, linewidth=0)
    ax.plot(xs, mid, color=color, marker="o", markersize=3, linewidth=1.4, label=label)


def throughput_vs_size(analysis) -> Figure | None:
    p = analysis.params
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    drawn = False
    for curve in analysis.curves.values():
        its = sorted(curve.throughput)
        if not its:
            continue
        values = [curve.throughput[it] for it in its]
        _band(ax, its, [min(v) for v in values], [statistics.median(v) for v in values],
              [max(v) for v in values], curve.system,
              f"{curve.system} ({curve.cores_text if curve.processor == 'gpu' else units.count(curve.cores, 'core')})")
        drawn = True
    if not drawn:
        return None
    ax.set_xscale("log", base=2)
    log_axis(ax, "y", unit(p.kernel), unit(p.kernel))
    for processor, slot in (("cpu", "core"), ("gpu", "GPU slot")):  # docs/gpu.md: peaks per processor
        for cores, info in analysis.peaks.describe(processor).items():
            if info["peak"]:
                ax.axhline(info["peak"], color="grey", linestyle=":", linewidth=0.8)
                ax.annotate(f"peak, {units.count(cores, slot)}", (ax.get_xlim()[0], info["peak"]), fontsize=7,
                            color=NOTE_GREY, va="bottom")
    ax.set_xlabel("problem size (kernel iterations per task, log scale)")
    ax.set_title(f"{unit(p.kernel)} vs problem size ({p.pattern}, {units.count(p.steps, 'step')} x {p.width})\n"
                 f"{spread_note(p.reps, 'line', 'band')}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def _efficiency_by_size(curve) -> list[tuple[float, float, float, float]]:
    """(median granularity, min, median, max efficiency in %) per size, in sweep order."""
    by_iter: dict[int, list] = defaultdict(list)
    for points in curve.reps.values():
        for pt in points:
            if pt.ok:
                by_iter[pt.iter].append(pt)
    rows = []
    for it in sorted(by_iter, reverse=True):
        effs = [pt.efficiency * 100 for pt in by_iter[it]]
        rows.append((statistics.median(pt.granularity for pt in by_iter[it]),
                     min(effs), statistics.median(effs), max(effs)))
    return rows


def efficiency_vs_granularity(analysis) -> Figure | None:
    p = analysis.params
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    drawn = False
    for curve in analysis.curves.values():
        rows = _efficiency_by_size(curve)
        if not rows:
            continue
        xs, low, mid, high = zip(*rows)
        metg = curve.summary.median if curve.summary else None
        label = f"{curve.system}, METG {units.seconds(metg)}" if metg else f"{curve.system}, no METG"
        _band(ax, xs, low, mid, high, curve.system, label)
        if metg:
            ax.plot([metg], [p.threshold * 100], marker="D", markersize=7, color=color_for(curve.system),
                    markeredgecolor="black", markeredgewidth=0.6, zorder=5)
            ax.axvline(metg, color=color_for(curve.system), linestyle=":", linewidth=0.9)
        drawn = True
    if not drawn:
        return None
    ax.axhline(p.threshold * 100, color="red", linestyle="--", linewidth=1, label=f"{p.threshold:.0%} threshold")
    log_axis(ax, "x", "task granularity = elapsed x cores / tasks", "s")
    ax.set_ylabel("efficiency (% of peak)")
    ax.set_ylim(0, max(105, ax.get_ylim()[1]))
    ax.plot([], [], marker="D", linestyle="none", color="grey", markeredgecolor="black", label="METG (median)")
    ax.set_title(f"efficiency vs task granularity ({p.pattern}, {p.kernel})\n"
                 f"{spread_note(p.reps, 'line', 'band')}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def metg_bars(analysis) -> Figure | None:
    """Which system is fastest at small tasks: METG per system, smallest on top, whisker = range.
    An unreliable METG is a hatched, faded bar labelled "(unreliable)", as the table marks it; a
    one-core reference (serial) comes last, grey, labelled so: it is not in the race."""
    p = analysis.params
    curves = sorted(analysis.curves.values(),
                    key=lambda c: (getattr(c, "reference", False), c.summary.median is None, c.summary.median or 0,
                                   c.system))
    if not curves or all(c.summary.median is None for c in curves):
        return None
    fig = new_figure(6.4, 1.7 + 0.45 * len(curves))
    ax = fig.add_subplot()
    floor = min(c.summary.low for c in curves if c.summary.median) / 10
    for y, c in enumerate(curves):
        s = c.summary
        if s.median is None:
            ax.text(floor * 1.1, y, "no METG", va="center", fontsize=8, color=text_color_for(c.system))
            continue
        unsure = bool(s.unreliable)
        color = REFERENCE_GREY if getattr(c, "reference", False) else color_for(c.system)
        ax.barh(y, s.median - floor, left=floor, color=color, height=0.6,
                alpha=0.35 if unsure else 1.0, hatch="//" if unsure else None, edgecolor="black" if unsure else None)
        ax.errorbar(s.median, y, xerr=[[s.median - s.low], [s.high - s.median]], color="black",
                    capsize=3, linewidth=0.9)
        ax.text(s.high * 1.08, y, units.seconds(s.median) + s.mark, va="center", fontsize=8,
                color=UNRELIABLE_COLOR if unsure else "black")
    ax.set_yticks(range(len(curves)))
    ax.set_yticklabels([f"{c.system} (1 core, reference)" if getattr(c, "reference", False) else c.system
                        for c in curves])
    log_axis(ax, "x", f"METG({p.threshold:.0%}): smaller is better at small tasks", "s")
    ax.set_xlim(floor, max(c.summary.high for c in curves if c.summary.median) * 10)
    ax.set_ylim(len(curves) - 0.5, -0.5)
    ax.set_title(f"METG per system ({p.pattern}, {p.kernel})\n{spread_note(p.reps, 'bar', 'whisker')}",
                 fontsize=9)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    return fig


def _metg_series(analyses, x_of) -> dict[str, dict[float, tuple[float, float, float, bool]]]:
    """system -> x -> (median, low, high, unreliable); the latest campaign wins at equal x."""
    series: dict[str, dict] = defaultdict(dict)
    for a in analyses:
        x = x_of(a)
        for name, curve in a.curves.items():
            s = curve.summary
            if s and s.median is not None and x is not None:
                series[name][x] = (s.median, s.low, s.high, bool(s.unreliable))
    return series


def _metg_plot(series, xlabel: str, title: str, threshold: float) -> Figure:
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    for i, (name, points) in enumerate(sorted(series.items())):
        xs = sorted(points)
        med = [points[x][0] for x in xs]
        err = [[points[x][0] - points[x][1] for x in xs], [points[x][2] - points[x][0] for x in xs]]
        ax.errorbar(xs, med, yerr=err, label=name, capsize=2, color=color_for(name), **style(i))
        unsure = [x for x in xs if points[x][3]]
        ring_unreliable(ax, unsure, [points[x][0] for x in unsure])
    log_axis(ax, "y", f"METG({threshold:.0%})", "s")
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def _planned(name: str, series, xlabel: str, title: str, threshold: float) -> list[tuple[str, Callable]]:
    """[(name, draw)] when some system has two points to join, else []."""
    if not any(len(points) >= 2 for points in series.values()):
        return []
    return [(name, lambda: _metg_plot(series, xlabel, title, threshold))]


def metg_vs_dependencies(analyses) -> list[tuple[str, Callable[[], Figure]]]:
    """Fig. 10 per group of nearest campaigns differing only in radix: (name, draw) each, drawn
    when the report renders its figures."""
    groups = defaultdict(list)
    for a in analyses:
        if a.params.pattern == "nearest" and a.params.radix is not None:
            groups[(a.params.kernel, a.params.steps, a.params.width, a.params.threshold)].append(a)
    figures = []
    for (kernel, steps, width, threshold), members in groups.items():
        figures += _planned(f"metg_vs_deps_{kernel}_{steps}x{width}", _metg_series(members, lambda a: a.params.radix),
                            "dependencies per task (nearest radix)",
                            f"METG vs dependencies per task (nearest, {kernel}, {steps} x {width})", threshold)
    return figures


def metg_vs_nodes(analyses) -> list[tuple[str, Callable[[], Figure]]]:
    """Fig. 9 per group of campaigns of one pattern at several node counts: (name, draw) each."""
    groups = defaultdict(list)
    for a in analyses:
        groups[(a.params.pattern, a.params.kernel, a.params.threshold)].append(a)
    figures = []
    for (pattern, kernel, threshold), members in groups.items():
        if len({a.nodes for a in members}) < 2:
            continue
        figures += _planned(f"metg_vs_nodes_{pattern}_{kernel}", _metg_series(members, lambda a: a.nodes),
                            "nodes", f"METG vs nodes ({pattern}, {kernel})", threshold)
    return figures
