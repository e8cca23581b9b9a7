"""The studies' figures, one function per study (the drawing only: each study's module says what
its figure shows, from its stored runs); None when the data cannot draw it yet."""

from __future__ import annotations

import textwrap

from taskbench.plots.colors import color_for
from taskbench.plots.frame import NOTE_GREY, Figure, legend_below, log_axis, new_figure, ring_unreliable, style

PUBLISHED = "published (Cori, SC20)"
# One colour per node count of a simulated study, its systems told apart by their markers.
NODE_SHADES = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def draw_published(ax, series, what: str, linestyle: str = "--") -> None:
    """The paper's own series, grey and dashed, a marker each: beside the measured, never among
    them (linestyle "none": markers alone, for categories a line would join)."""
    for k, (label, points) in enumerate(series):
        ax.plot([x for x, _ in points], [y for _, y in points], linestyle=linestyle, marker="x+1"[k % 3],
                linewidth=0.9, color=NOTE_GREY, alpha=0.8, label=f"{what}: {label}")


def imbalance_cost(result, patterns, relative_to_balanced, label, published=None) -> Figure | None:
    """Time per unit of work relative to the balanced run vs imbalance, a panel per pattern;
    published ({pattern: [(label, [(imbalance, relative time)])]}) the paper's, drawn beside."""
    levels = sorted({p["imbalance"] for p in result.points()})
    shown = [p for p in patterns if any(q["pattern"] == p for q in result.points())]
    fig = new_figure(5.0 * max(1, len(shown)), 4.2)
    drawn = False
    for k, pattern in enumerate(shown):
        ax = fig.add_subplot(1, len(shown), k + 1)
        for i, system in enumerate(result.systems):
            balanced = result.best(system, {"pattern": pattern, "imbalance": levels[0]})
            points = [(x, relative_to_balanced(result.best(system, {"pattern": pattern, "imbalance": x}),
                                               balanced)) for x in levels]
            points = [(x, y) for x, y in points if y is not None]
            if points:
                ax.plot([x for x, _ in points], [y for _, y in points], label=system, color=color_for(system),
                        **style(i))
                drawn = True
        draw_published(ax, (published or {}).get(pattern, []),
                        f"{PUBLISHED}, Fig. 12 (4 graphs, largest size)")
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=0.8)
        ax.set_xlabel("load imbalance (-imbalance)")
        ax.set_ylabel("time per work vs balanced run")
        ax.set_title(label(pattern), fontsize=10)
        ax.grid(True, alpha=0.3)
    if not drawn:
        return None
    fig.suptitle(f"Cost of load imbalance ({result.name})", fontsize=10)
    legend_below(fig, fig.axes)
    return fig


def discovery_per_task(result, iterations, per_task) -> Figure | None:
    """Discovery per task (solid) and task granularity (dashed) vs -iter, a line per system."""
    fig = new_figure(6.4, 4.2)
    ax = fig.add_subplot()
    drawn = False
    for i, system in enumerate(result.systems):
        points = [(it, per_task(result.best(system, {"iter": it}))) for it in iterations]
        points = [(it, f) for it, f in points if f is not None]
        if not points:
            continue
        line, = ax.plot([it for it, _ in points], [f["discovery_ns"] for _, f in points],
                        label=f"{system}: discovery", color=color_for(system), **style(i))
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
    legend_below(fig, [ax])
    return fig


def metg_vs_parameter(result, study, curves, published) -> Figure | None:
    """METG (with its 95% interval) vs the study's parameter, a line per system (`curves`: {system:
    [(value, METG cell)]}), the paper's (`published`: [(label, [(value, seconds)])]) beside them;
    the title carries the paper's figure number so the report says what it reproduces."""
    values = [value for value, _ in result.values()]
    position = {value: k for k, value in enumerate(values)}
    fig = new_figure(6.8, 4.4)
    ax = fig.add_subplot()
    drawn = False
    for i, system in enumerate(result.systems):
        points = curves.get(system)
        if not points:
            continue
        xs = [position[v] if study.categorical else v for v, _ in points]
        med = [c.seconds for _, c in points]
        err = [[c.seconds - (c.low or c.seconds) for _, c in points],
               [(c.high or c.seconds) - c.seconds for _, c in points]]
        # Patterns are categories: a line between two of them would suggest values in between.
        line = {"linestyle": "none"} if study.categorical else {}
        ax.errorbar(xs, med, yerr=err, label=system, capsize=2, color=color_for(system), **{**style(i), **line})
        unsure = [(x, c.seconds) for x, (_, c) in zip(xs, points) if c.unreliable]
        ring_unreliable(ax, [x for x, _ in unsure], [y for _, y in unsure])
        drawn = True
    if not drawn:
        return None
    # Only the values this result has, placed as the measured ones are.
    paper = [(label, [(position[v] if study.categorical else v, m) for v, m in points if v in position])
             for label, points in published]
    draw_published(ax, paper, PUBLISHED, "none" if study.categorical else "--")
    if study.categorical:
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels([str(v) for v in values], rotation=30, ha="right", fontsize=8)
    elif study.log_axis:
        ax.set_xscale("log", base=2)
    log_axis(ax, "y", "METG(50%)", "s")
    ax.set_xlabel(study.parameter)
    ax.set_title(f"{study.title}\n{result.name}", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def flops_vs_normalized_size(name, curves, missing, published, published_label, unit) -> Figure | None:
    """The paper's Fig. 13: FLOP/s vs normalized problem size, a line per system (`curves`: {system:
    [(normalized size, FLOP/s)]}, empty where it has none); the systems without a line are named
    under the title (`missing`: {why: [systems]}), the paper's curves (Piz Daint: 12-core Xeon and
    P100) grey and dashed."""
    fig = new_figure(6.4, 4.4)
    ax = fig.add_subplot()
    for i, (system, points) in enumerate(curves.items()):
        if points:
            ax.plot([x for x, _ in points], [y for _, y in points], label=system, color=color_for(system),
                    **style(i))
    if not ax.get_lines():
        return None
    draw_published(ax, published, published_label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("normalized problem size (-iter / largest -iter; published: FLOPs per step / MPI's largest)")
    log_axis(ax, "y", unit, unit)
    notes = [textwrap.fill(f"not drawn, {why}: {', '.join(names)}", 80) for why, names in missing.items()]
    ax.set_title("\n".join([f"Fig. 13: {unit} vs normalized problem size, stencil_1d", name, *notes]), fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, [ax])
    return fig


def simulated_metg_vs_parameter(study, name: str, platform: str, curves, published) -> Figure | None:
    """METG vs the study's parameter, a solid line per (simulated system, node count) (`curves`:
    {nodes: {system: [(value, seconds)]}}, every system, empty where it has no METG) and the paper's
    figure of the same node count (`published`: {nodes: {label: [(value, seconds)]}}) dashed in the
    same colour."""
    fig = new_figure(7.2, 4.6)
    ax = fig.add_subplot()
    drawn = False
    for k, (nodes, systems) in enumerate(curves.items()):
        colour = NODE_SHADES[k % len(NODE_SHADES)]
        for i, (system, points) in enumerate(systems.items()):
            if points:
                ax.plot([v for v, _ in points], [s for _, s in points], color=colour,
                        label=f"SIMULATED {system}, {nodes} nodes", **style(i))
                drawn = True
        for label, points in published.get(nodes, {}).items():
            ax.plot([v for v, _ in points], [s for _, s in points], linestyle="--", marker="x", linewidth=0.9,
                    color=colour, alpha=0.8, label=f"published (Cori, SC20): {label}, {nodes} nodes")
    if not drawn:
        return None
    if study.log_axis:
        ax.set_xscale("log", base=2)
    log_axis(ax, "y", "METG(50%)", "s")
    ax.set_xlabel(study.parameter)
    ax.set_title(f"SIMULATED ({platform}, SimGrid SMPI): {study.title}\n{name}", fontsize=8, color="black")
    ax.grid(True, which="both", alpha=0.3, color=NOTE_GREY)
    legend_below(fig, [ax])
    return fig


def weak_and_strong_scaling(result, modes, axis, metg=None, floor=(), published=()) -> Figure | None:
    """Time vs cores, a panel per mode (weak: flat is ideal; strong: 1/cores is ideal), a line
    per (system, -iter); and with `metg` ({system: [(cores, seconds)]}) a panel of METG(50%) vs
    cores, the no-runtime floor (`floor`, [(cores, seconds)]) drawn beside the systems; and with
    `published` ([(label, [(nodes, seconds)])]) the paper's Fig. 9a, METG vs Cori nodes, in a
    panel of its own (nodes are not cores: never on the measured axes)."""
    iterations, counts = axis
    panels = len(modes) + (1 if metg else 0) + (1 if published else 0)
    fig = new_figure(5.0 * panels, 4.2)
    drawn = False
    for k, mode in enumerate(modes):
        ax = fig.add_subplot(1, panels, k + 1)
        for i, system in enumerate(result.systems):
            for j, it in enumerate(iterations):
                runs = [(c, result.best(system, {"mode": mode, "iter": it, "cores": c})) for c in counts]
                points = [(c, r["elapsed_seconds"]) for c, r in runs if r and r["status"] == "ok"]
                if points:
                    ax.plot([c for c, _ in points], [t for _, t in points], label=f"{system} -iter {it}",
                            linestyle="-" if j == len(iterations) - 1 else "--", color=color_for(system),
                            **style(i))
                    drawn = True
        _cores_axis(ax, counts, "wall time of the graph", "cores (threads, or MPI ranks)",
                    f"{'Fig. 4' if mode == 'weak' else 'Fig. 5'}: {mode} scaling")
    if metg:
        drawn = _metg_vs_cores(fig.add_subplot(1, panels, len(modes) + 1), result.systems, counts, metg,
                               floor) or drawn
    if not drawn:
        return None
    if published:
        ax = fig.add_subplot(1, panels, panels)
        draw_published(ax, published, PUBLISHED)
        nodes = sorted({n for _, points in published for n, _ in points})
        _cores_axis(ax, nodes, "METG(50%)", "Cori nodes (32 cores each)", "Fig. 9a as published: METG vs nodes")
    fig.suptitle(f"Weak and strong scaling ({result.name})", fontsize=10)
    legend_below(fig, fig.axes)
    return fig


def _metg_vs_cores(ax, systems, counts, metg, floor) -> bool:
    drawn = False
    for i, system in enumerate(systems):
        points = metg.get(system) or []
        if points:
            ax.plot([c for c, _ in points], [m for _, m in points], label=f"{system} METG",
                    color=color_for(system), **style(i))
            drawn = True
    if floor:
        ax.plot([c for c, _ in floor], [m for _, m in floor], label="no-runtime floor", color="black",
                linestyle=":", marker="x")
        drawn = True
    _cores_axis(ax, counts, "METG(50%)", "cores (threads, or MPI ranks); width = cores",
                "Fig. 9a at one node: METG(50%) vs cores")
    return drawn


def _cores_axis(ax, counts, seconds_label, xlabel, title) -> None:
    """Cores on a log2 axis ticked at the counts run, seconds on a log axis."""
    ax.set_xscale("log", base=2)
    log_axis(ax, "y", seconds_label, "s")
    ax.set_xticks(counts)
    ax.set_xticklabels([str(c) for c in counts])
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
