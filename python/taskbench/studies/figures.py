"""The studies' figures (matplotlib, Agg backend), one function per study; None when the stored
runs cannot draw it yet."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

from taskbench.plots import style  # noqa: E402


def imbalance(result, patterns, relative_to_balanced, label) -> Figure | None:
    """Time per unit of work relative to the balanced run vs imbalance, a panel per pattern."""
    levels = sorted({p["imbalance"] for p in result.points()})
    shown = [p for p in patterns if any(q["pattern"] == p for q in result.points())]
    fig = Figure(figsize=(5.0 * max(1, len(shown)), 4.2))
    drawn = False
    for k, pattern in enumerate(shown):
        ax = fig.add_subplot(1, len(shown), k + 1)
        for i, system in enumerate(result.systems):
            balanced = result.best(system, {"pattern": pattern, "imbalance": levels[0]})
            points = [(x, relative_to_balanced(result.best(system, {"pattern": pattern, "imbalance": x}),
                                               balanced)) for x in levels]
            points = [(x, y) for x, y in points if y is not None]
            if points:
                ax.plot([x for x, _ in points], [y for _, y in points], label=system, **style(i))
                drawn = True
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=0.8)
        ax.set_xlabel("load imbalance (-imbalance)")
        ax.set_ylabel("time per work vs balanced run")
        ax.set_title(label(pattern), fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    if not drawn:
        return None
    fig.suptitle(f"Cost of load imbalance ({result.name})", fontsize=10)
    fig.tight_layout()
    return fig


def discovery(result, iterations, per_task) -> Figure | None:
    """Discovery per task (solid) and task granularity (dashed) vs -iter, a line per system."""
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    drawn = False
    for i, system in enumerate(result.systems):
        points = [(it, per_task(result.best(system, {"iter": it}))) for it in iterations]
        points = [(it, f) for it, f in points if f is not None]
        if not points:
            continue
        line, = ax.plot([it for it, _ in points], [f["discovery_ns"] for _, f in points],
                        label=f"{system}: discovery", **style(i))
        ax.plot([it for it, _ in points], [f["granularity_ns"] for _, f in points], linestyle="--",
                color=line.get_color(), label=f"{system}: task granularity", **{**style(i), "linewidth": 0.9})
        drawn = True
    if not drawn:
        return None
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("problem size (kernel iterations per task)")
    ax.set_ylabel("ns per task")
    ax.set_title(f"Discovery vs execution per task ({result.name})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
