"""Figures of the traced runs (measure/traces.py): a Gantt chart per system and the time-split bars."""

from __future__ import annotations

# frame.py first: it chooses the Agg backend before anything of matplotlib is drawn.
from taskbench.plots.frame import Figure, new_figure  # noqa: I001

from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.ticker import EngFormatter

from taskbench.measure.trace_split import WINDOW_STEPS, window
from taskbench.plots.colors import text_color_for

# Bars on white (3:1 at least) that carry black percentages (4.5:1 at least).
PART_COLORS = {"work": "#4c9a2a", "overhead": "#c27c0e", "idle": "#8c8c8c", "discovery": "#6a8caf"}


def gantt(run: dict, trace: dict) -> Figure | None:
    """Workers x time, one bar per task, coloured by timestep."""
    events = trace.get("events") or []
    if not events:
        return None
    shown, note = window(events, WINDOW_STEPS)
    workers = trace["workers"]
    origin = min(e[4] for e in shown)
    norm = Normalize(min(e[2] for e in shown), max(max(e[2] for e in shown), min(e[2] for e in shown) + 1))
    cmap = colormaps["viridis"]
    height = 2.0 + 0.28 * min(len(workers), 32)
    fig = new_figure(6.4, height)
    ax = fig.add_subplot()
    ax.barh([e[0] for e in shown], [e[5] * 1e-6 for e in shown], left=[(e[4] - origin) * 1e-6 for e in shown],
            height=0.8, color=[cmap(norm(e[2])) for e in shown], edgecolor="white", linewidth=0.3)
    ax.set_yticks(range(len(workers)))
    ranks = len({pid for pid, _ in workers}) > 1
    ax.set_yticklabels([f"rank {pid} / {tid}" if ranks else str(tid) for pid, tid in workers], fontsize=7)
    ax.invert_yaxis()
    ax.set_ylabel("rank / thread" if ranks else "worker (thread)")
    ax.xaxis.set_major_formatter(EngFormatter(unit="s"))
    ax.set_xlabel("time since the window's first task")
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="timestep", pad=0.01)
    clock = "\neach rank's clock starts at its first task" if trace.get("files", 1) > 1 else ""
    ax.set_title(f"{run['system']}: -iter {run.get('iter')}, {note}{clock}", fontsize=9,
                 color=text_color_for(run["system"]))
    return fig


def time_split(rows: list[tuple[str, str, dict]]) -> Figure | None:
    """One stacked bar per system: (system, source, {part: fraction}) with source 'trace' or
    'breakdown'."""
    if not rows:
        return None
    fig = new_figure(6.4, 1.2 + 0.42 * len(rows))
    ax = fig.add_subplot()
    seen = set()
    for y, (system, _, parts) in enumerate(rows):
        left = 0.0
        for part, color in PART_COLORS.items():
            value = parts.get(part, 0.0) * 100
            if value <= 0:
                continue
            ax.barh(y, value, left=left, color=color, height=0.6,
                    label=part if part not in seen else None)
            seen.add(part)
            if value >= 7:
                ax.text(left + value / 2, y, f"{value:.0f}%", ha="center", va="center", fontsize=7)
            left += value
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{system} ({source})" for system, source, _ in rows], fontsize=8)
    for label, (system, _, _) in zip(ax.get_yticklabels(), rows):
        label.set_color(text_color_for(system))
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the workers' time over the run (%)")
    ax.legend(fontsize=7, ncols=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)  # above the bars
    return fig
