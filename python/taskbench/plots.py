"""The paper's figures from campaign analyses (matplotlib, Agg backend: no display needed).

Fig. 6  throughput vs problem size            one per METG campaign
Fig. 7  efficiency vs task granularity         one per METG campaign, threshold line, METG marks
Fig. 9  METG vs nodes                          campaigns of one pattern at several node counts
Fig. 10 METG vs dependencies per task          nearest-pattern campaigns with different radix
Every function returns a matplotlib Figure, or None when the data cannot make that figure.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

from taskbench.kernels import unit  # noqa: E402

_MARKERS = "osD^v<>pPX*h"


def style(i: int) -> dict:
    return {"marker": _MARKERS[i % len(_MARKERS)], "markersize": 4, "linewidth": 1.2}


def throughput_vs_size(analysis) -> Figure | None:
    p = analysis.params
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    drawn = False
    for i, curve in enumerate(analysis.curves.values()):
        its = sorted(curve.throughput)
        if not its:
            continue
        mean = [statistics.fmean(curve.throughput[it]) for it in its]
        low = [m - min(curve.throughput[it]) for m, it in zip(mean, its)]
        high = [max(curve.throughput[it]) - m for m, it in zip(mean, its)]
        ax.errorbar(its, mean, yerr=[low, high], label=f"{curve.system} ({curve.cores} cores)",
                    capsize=2, **style(i))
        drawn = True
    if not drawn:
        return None
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    for cores, info in analysis.peaks.describe().items():
        if info["peak"]:
            ax.axhline(info["peak"], color="grey", linestyle=":", linewidth=0.8)
            ax.annotate(f"peak, {cores} core(s)", (ax.get_xlim()[0], info["peak"]), fontsize=7,
                        color="grey", va="bottom")
    ax.set_xlabel("problem size (kernel iterations per task)")
    ax.set_ylabel(unit(p.kernel))
    ax.set_title(f"{unit(p.kernel)} vs problem size ({p.pattern}, {p.steps} steps x {p.width})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def efficiency_vs_granularity(analysis) -> Figure | None:
    p = analysis.params
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    drawn = False
    for i, curve in enumerate(analysis.curves.values()):
        color = None
        for rep, points in sorted(curve.reps.items()):
            pts = sorted((pt for pt in points if pt.ok), key=lambda pt: -pt.iter)
            if not pts:
                continue
            line, = ax.plot([pt.granularity for pt in pts], [pt.efficiency * 100 for pt in pts],
                            color=color, alpha=0.85, label=curve.system if color is None else None,
                            **style(i))
            color = line.get_color()
            drawn = True
        if curve.summary and curve.summary.median is not None and color is not None:
            ax.axvline(curve.summary.median, color=color, linestyle=":", linewidth=0.9)
    if not drawn:
        return None
    ax.axhline(p.threshold * 100, color="red", linestyle="--", linewidth=1, label=f"{p.threshold:.0%} threshold")
    ax.set_xscale("log")
    ax.set_xlabel("task granularity (s) = elapsed x cores / tasks")
    ax.set_ylabel("efficiency (% of peak)")
    ax.set_ylim(0, max(105, ax.get_ylim()[1]))
    ax.set_title(f"efficiency vs task granularity ({p.pattern}, {p.kernel})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _metg_series(analyses, x_of) -> dict[str, dict[float, tuple[float, float, float]]]:
    """system -> x -> (median, low, high); the latest campaign wins at equal x."""
    series: dict[str, dict] = defaultdict(dict)
    for a in analyses:
        x = x_of(a)
        for name, curve in a.curves.items():
            s = curve.summary
            if s and s.median is not None and x is not None:
                series[name][x] = (s.median, s.low, s.high)
    return series


def _metg_plot(series, xlabel: str, title: str, threshold: float) -> Figure | None:
    if not any(len(points) >= 2 for points in series.values()):
        return None
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    for i, (name, points) in enumerate(sorted(series.items())):
        xs = sorted(points)
        med = [points[x][0] for x in xs]
        err = [[points[x][0] - points[x][1] for x in xs], [points[x][2] - points[x][0] for x in xs]]
        ax.errorbar(xs, med, yerr=err, label=name, capsize=2, **style(i))
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"METG({threshold:.0%}) (s)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def metg_vs_dependencies(analyses) -> list[tuple[str, Figure]]:
    groups = defaultdict(list)
    for a in analyses:
        if a.params.pattern == "nearest" and a.params.radix is not None:
            groups[(a.params.kernel, a.params.steps, a.params.width, a.params.threshold)].append(a)
    figures = []
    for (kernel, steps, width, threshold), members in groups.items():
        series = _metg_series(members, lambda a: a.params.radix)
        fig = _metg_plot(series, "dependencies per task (nearest radix)",
                         f"METG vs dependencies per task (nearest, {kernel}, {steps} x {width})", threshold)
        if fig:
            figures.append((f"metg_vs_deps_{kernel}_{steps}x{width}", fig))
    return figures


def metg_vs_nodes(analyses) -> list[tuple[str, Figure]]:
    groups = defaultdict(list)
    for a in analyses:
        groups[(a.params.pattern, a.params.kernel, a.params.threshold)].append(a)
    figures = []
    for (pattern, kernel, threshold), members in groups.items():
        if len({a.nodes for a in members}) < 2:
            continue
        series = _metg_series(members, lambda a: a.nodes)
        fig = _metg_plot(series, "nodes", f"METG vs nodes ({pattern}, {kernel})", threshold)
        if fig:
            figures.append((f"metg_vs_nodes_{pattern}_{kernel}", fig))
    return figures
