"""The figures across METG campaigns, each returned as (name, draw) pairs drawn when the report
renders: METG vs dependencies per task (Fig. 10, nearest campaigns that differ only in radix) and
METG vs nodes (Fig. 9, campaigns of one pattern at several node counts)."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable

from taskbench.plots.colors import color_for


def _metg_series(analyses, x_of) -> dict[str, dict[float, tuple[float, float, float, bool]]]:
    """system -> x -> (METG, low, high, unreliable): the 95% interval, or the METG alone where it
    has none; the latest campaign wins at equal x."""
    series: dict[str, dict] = defaultdict(dict)
    for a in analyses:
        x = x_of(a)
        for name, curve in a.curves.items():
            s = curve.summary
            if s and s.seconds is not None and x is not None:
                series[name][x] = (s.seconds, s.low or s.seconds, s.high or s.seconds, bool(s.unreliable))
    return series


def _metg_plot(series, xlabel: str, title: str, threshold: float, published=(), log_x: bool = False):
    """published: [(label, [(x, METG)])], the paper's figures, dashed beside the series."""
    # matplotlib when drawn only: choosing which figures there are needs none (plots/__init__.py).
    from taskbench.plots.frame import legend_below, log_axis, new_figure, ring_unreliable, style
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    for label, points in published:
        ax.plot([x for x, _ in points], [m for _, m in points], "--", color="black", marker="x",
                label=f"{label} (published)")
    if log_x:  # node counts double from one point to the next, as the paper's Fig. 9 draws them
        ax.set_xscale("log", base=2)
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


def _deferred(name: str, series, xlabel: str, title: str, threshold: float,
              published=(), log_x: bool = False) -> list[tuple[str, Callable]]:
    """[(name, draw)] when some system has two points to join, else []."""
    if not any(len(points) >= 2 for points in series.values()):
        return []
    return [(name, lambda: _metg_plot(series, xlabel, title, threshold, published, log_x))]


def metg_vs_dependencies(analyses) -> list[tuple[str, Callable]]:
    """Fig. 10 per group of nearest campaigns differing only in radix: (name, draw) each, drawn
    when the report renders its figures."""
    groups = defaultdict(list)
    for a in analyses:
        if a.params.pattern == "nearest" and a.params.radix is not None:
            groups[(a.params.kernel, a.params.steps, a.params.width, a.params.threshold)].append(a)
    figures = []
    for (kernel, steps, width, threshold), members in groups.items():
        figures += _deferred(f"metg_vs_deps_{kernel}_{steps}x{width}", _metg_series(members, lambda a: a.params.radix),
                            "dependencies per task (nearest radix)",
                            f"METG vs dependencies per task (nearest, {kernel}, {steps} x {width})", threshold)
    return figures


def metg_vs_nodes(analyses, published=None, label: str = "") -> list[tuple[str, Callable]]:
    """Fig. 9 per group of campaigns of one pattern at several node counts: (name, draw) each.
    published(pattern, systems): the paper's series to draw beside these systems', or None;
    label: what the title says first ("SIMULATED": simulated seconds, never drawn with measured)."""
    groups = defaultdict(list)
    for a in analyses:
        groups[(a.params.pattern, a.params.kernel, a.params.threshold)].append(a)
    figures = []
    for (pattern, kernel, threshold), members in groups.items():
        if len({a.nodes for a in members}) < 2:
            continue
        series = _metg_series(members, lambda a: a.nodes)
        paper = published(pattern, sorted(series)) if published is not None else []
        prefix = f"{label}: " if label else ""
        figures += _deferred(f"metg_vs_nodes_{pattern}_{kernel}{'_' + label.lower() if label else ''}", series,
                            "nodes", f"{prefix}METG vs nodes ({pattern}, {kernel})", threshold, paper, log_x=True)
    return figures
