"""The figures of one METG campaign: throughput vs problem size (Fig. 6), efficiency vs task
granularity (Fig. 7), and METG per system (which system is fastest at small tasks). Curves are
the median over repetitions with a shaded band for their range; every system has the colour
colors.color_for gives it."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict

from taskbench import units
from taskbench.measure.kernels import unit
from taskbench.plots.colors import color_for, text_color_for
from taskbench.plots.frame import (NOTE_GREY, REFERENCE_GREY, UNRELIABLE_COLOR, Figure, legend_below, log_axis,
                                   new_figure, spread_note)

from matplotlib import transforms  # noqa: E402  (after frame.py has chosen the backend)


def _band(ax, xs, low, mid, high, system: str, label: str) -> None:
    """The median line of one system and a shaded band for the range over repetitions."""
    color = color_for(system)
    ax.fill_between(xs, low, high, color=color, alpha=0.18, linewidth=0)
    ax.plot(xs, mid, color=color, marker="o", markersize=3, linewidth=1.4, label=label)


def _per_curve(analysis, draw):
    """(figure, axis) on which draw(ax, curve) drew each system's curve (it returns whether it
    had one to draw), or None where no system had."""
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    drawn = [draw(ax, curve) for curve in analysis.curves.values()]
    return (fig, ax) if any(drawn) else None


def _throughput_band(ax, curve) -> bool:
    its = sorted(curve.throughput)
    if not its:
        return False
    values = [curve.throughput[it] for it in its]
    _band(ax, its, [min(v) for v in values], [statistics.median(v) for v in values],
          [max(v) for v in values], curve.system,
          f"{curve.system} ({curve.cores_text if curve.processor == 'gpu' else units.count(curve.cores, 'core')})")
    return True


def throughput_vs_size(analysis) -> Figure | None:
    p = analysis.params
    drawn = _per_curve(analysis, _throughput_band)
    if drawn is None:
        return None
    fig, ax = drawn
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


def _efficiency_band(ax, curve, threshold: float) -> bool:
    rows = _efficiency_by_size(curve)
    if not rows:
        return False
    xs, low, mid, high = zip(*rows)
    metg = curve.summary.seconds if curve.summary else None
    label = f"{curve.system}, METG {units.seconds(metg)}" if metg else f"{curve.system}, no METG"
    _band(ax, xs, low, mid, high, curve.system, label)
    if metg:
        ax.plot([metg], [threshold * 100], marker="D", markersize=7, color=color_for(curve.system),
                markeredgecolor="black", markeredgewidth=0.6, zorder=5)
        ax.axvline(metg, color=color_for(curve.system), linestyle=":", linewidth=0.9)
    return True


def efficiency_vs_granularity(analysis, published: list[tuple[str, list[tuple[float, float]]]] = ()) -> Figure | None:
    """published: (label, [(granularity, efficiency)]) curves of the paper (--reference sc20),
    drawn dashed and thin, labelled as published: beside the measured ones, never among them."""
    p = analysis.params
    drawn = _per_curve(analysis, lambda ax, curve: _efficiency_band(ax, curve, p.threshold))
    if drawn is None:
        return None
    fig, ax = drawn
    for k, (label, points) in enumerate(published):
        color = REFERENCE_GREY if k % 2 else NOTE_GREY
        ax.plot([g for g, _ in points], [e * 100 for _, e in points], linestyle="--", linewidth=0.8, alpha=0.7,
                color=color, label=f"published (SC20): {label}")
        # Named at its METG end (greys alone cannot tell the curves apart; their tops coincide).
        efficient = [point for point in points if point[1] >= 0.5] or points
        at = min(efficient, key=lambda point: point[0])
        ax.text(at[0], at[1] * 100, label + " ", fontsize=6, color=color, ha="right", va="center", rotation=30)
    ax.axhline(p.threshold * 100, color="red", linestyle="--", linewidth=1, label=f"{p.threshold:.0%} threshold")
    log_axis(ax, "x", "task granularity = elapsed x cores / tasks", "s")
    ax.set_ylabel("efficiency (% of peak)")
    ax.set_ylim(0, max(105, ax.get_ylim()[1]))
    ax.plot([], [], marker="D", linestyle="none", color="grey", markeredgecolor="black", label="METG")
    ax.set_title(f"efficiency vs task granularity ({p.pattern}, {p.kernel})\n"
                 f"{spread_note(p.reps, 'line', 'band')}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def metg_bars(analysis) -> Figure | None:
    """Which system is fastest at small tasks: METG per system, smallest on top, whisker = its 95%
    interval; a side the interval cannot place (units.seconds_interval's "unbounded") is an arrow
    to the axis's edge. Each bar's figure, as every table writes it (units.metg), in a column right
    of the axes, which the layout makes room for.
    An unreliable METG is a hatched, faded bar labelled "(unreliable)", as the table marks it; a
    one-core reference (serial) comes last, grey, labelled so: it is not in the race."""
    p = analysis.params
    curves = sorted(analysis.curves.values(),
                    key=lambda c: (getattr(c, "reference", False), c.summary.seconds is None, c.summary.seconds or 0,
                                   c.system))
    if not curves or all(c.summary.seconds is None for c in curves):
        return None
    # Wide enough for the axes beside the names and the figures' column (~0.07 in a character at 8 pt).
    longest = max(len(c.summary.text + c.summary.mark) for c in curves) + max(len(c.system) for c in curves)
    fig = new_figure(max(6.4, 3.2 + 0.075 * longest), 1.7 + 0.45 * len(curves))
    ax = fig.add_subplot()
    shown = [c.summary for c in curves if c.summary.seconds]
    placed = [b for s in shown for b in (s.low, s.high) if b is not None and 0 < b < math.inf]
    floor = min([s.seconds for s in shown] + placed) / 10
    ceiling = max([s.seconds for s in shown] + placed) * 10
    label_at = transforms.blended_transform_factory(ax.transAxes, ax.transData)
    for y, c in enumerate(curves):
        s = c.summary
        if s.seconds is None:
            ax.text(1.02, y, f"no METG{s.mark}", transform=label_at, va="center", fontsize=8,
                    color=UNRELIABLE_COLOR if s.unreliable else text_color_for(c.system))
            continue
        unsure = bool(s.unreliable)
        color = REFERENCE_GREY if getattr(c, "reference", False) else color_for(c.system)
        ax.barh(y, s.seconds - floor, left=floor, color=color, height=0.6,
                alpha=0.35 if unsure else 1.0, hatch="//" if unsure else None, edgecolor="black" if unsure else None)
        low = s.seconds if s.low is None else floor if s.low <= 0 else s.low
        high = s.seconds if s.high is None else ceiling if math.isinf(s.high) else s.high
        ax.errorbar(s.seconds, y, xerr=[[s.seconds - low], [high - s.seconds]], color="black",
                    capsize=3, linewidth=0.9, xlolims=bool(s.high and math.isinf(s.high)),
                    xuplims=bool(s.low is not None and s.low <= 0))
        ax.text(1.02, y, s.text + s.mark, transform=label_at, va="center", fontsize=8,
                color=UNRELIABLE_COLOR if unsure else "black")
    ax.set_yticks(range(len(curves)))
    ax.set_yticklabels([f"{c.system} (1 core, reference)" if getattr(c, "reference", False) else c.system
                        for c in curves])
    log_axis(ax, "x", f"METG({p.threshold:.0%}): smaller is better at small tasks", "s")
    ax.set_xlim(floor, ceiling)
    ax.set_ylim(len(curves) - 0.5, -0.5)
    ax.set_title(f"METG per system ({p.pattern}, {p.kernel})\nbar: METG, whisker: its 95% interval "
                 "(an arrow: unbounded on that side)", fontsize=9)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    return fig
