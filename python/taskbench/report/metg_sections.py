"""A METG campaign's part of the report: its answer, parameters, table, notes and figures, and
several campaigns' parts together (a note they share said once above them all, a summary table
of them, the older ones folded).

A campaign's table is the terminal's columns (tables.metg_table), its notes numbered footnotes
under it. A note is a paragraph; in a cell it squeezed every other column to a few letters a line,
so the cell holds only the numbers of its notes, and a note several systems share is one footnote
naming them."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from taskbench import units
from taskbench.console import NOTES
from taskbench.measure.kernels import unit
from taskbench.measure.metg.reliability import busy_line
from taskbench.reference import published
from taskbench.registry.catalog import registry_entries
from taskbench.report import figure_cache
from taskbench.report.page import Note, Raw, cell_html, html_table, notes_html
from taskbench.report.tables import (UNRELIABLE_ANSWER, answer, definition, metg_table, notes_below_table, status_note,
                                     system_notes)
from taskbench.report.trace_sections import trace_section


@dataclass
class Section:
    """A METG campaign's part of the page; its notes are placed by campaign_group."""
    head: list[str]
    notes: list[Note] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    folded: str = ""  # the <summary> of an older campaign's folded section; "": shown open


def _params_line(a) -> str:
    """The campaign's graph and settings, under its heading."""
    p = a.params
    radix = f", radix {p.radix}" if p.radix is not None else ""
    background = a.background_load
    noise = f", background load {background:.2f} cores" if background is not None else ""
    return (f"{p.pattern}{radix}, {p.kernel}, {units.count(p.steps, 'step')} x {p.width} wide, "
            f"{units.count(p.reps, 'repetition')}, threshold {p.threshold:.0%}, {definition(p)}{noise}")


def simulated_badge(a) -> str:
    """The mark of a simulated campaign's heading: its figures are simulated seconds."""
    return " <span class='simulated'>SIMULATED</span>" if getattr(a.params, "simulation", None) else ""


def metg_campaign(store, a, heading: str, shown_as: str, level: int, figures, plots, plots_trace,
                  reference_nodes: list[int] | None = None, lead: bool = False) -> Section:
    """`heading` is HTML; `shown_as` names the campaign in shared notes; figures is None without
    matplotlib; reference_nodes: the paper's published METG at these node counts, apart; lead:
    the page's answer box shows this campaign's first sentence and METG bars already."""
    head = [f"<h{level}>{heading}{simulated_badge(a)}</h{level}>"]
    head += [f"<p class='{'warn' if line.startswith(UNRELIABLE_ANSWER) else 'answer'}'>{html.escape(line)}</p>"
             for line in answer(a)[1 if lead else 0:]]
    named = "" if shown_as == a.name else f"campaign {a.name}: "
    head.append(f"<p class='params'>{html.escape(named + _params_line(a))}</p>")
    unfinished = status_note(store.status(a.campaign))
    if unfinished:
        head.append(f"<p class='warn'>{html.escape(unfinished)}</p>")
    head.append(metg_table_html(a, anchor_of(a.name)))
    head.append("".join(f"<p class='params'>{html.escape(line)}</p>" for line in notes_below_table(a)))
    if reference_nodes:
        head.append(_published(a, reference_nodes))
    tail = []
    if a.busy is not None:  # beside the figures it doubts, not only in the line above
        head.append(f"<p class='warn'>{html.escape(busy_line(a.busy))}</p>")
    paper = (published.efficiency_curves(a.params.pattern, a.params.graphs, a.params.kernel)
             if reference_nodes else [])
    stamp = None
    if figures is not None:
        stamp = figure_cache.campaign_stamp(store, a.name) + f"/reference={reference_nodes}"
        head.append("<div class='row'>" + metg_bars(figures, plots, a, stamp)
                    + figures.add(f"{a.name}_fig7_efficiency", lambda: plots.efficiency_vs_granularity(a, paper),
                                  f"Fig. 7 style: efficiency vs task granularity ({a.name})"
                                  + ("; dashed: published (Cori, SC20, 1 node)" if paper else ""), stamp)
                    + "</div>")
        tail.append(figures.add(f"{a.name}_fig6_throughput", lambda: plots.throughput_vs_size(a),
                                f"Fig. 6 style: {unit(a.params.kernel)} vs problem size ({a.name})", stamp))
    traces, trace_notes = trace_section(store, a, figures, plots_trace, shown_as, level + 1, stamp)
    return Section(head, trace_notes, tail + traces)


def metg_bars(figures, plots, a, stamp: str | None) -> str:
    """The campaign's METG bars (interval whiskers): in the page's answer box for the campaign it
    answers with, in the campaign's own section otherwise (a figure is shown once)."""
    return figures.add(f"{a.name}_metg", lambda: plots.metg_bars(a),
                       f"METG per system, smallest first ({a.name}){' — SIMULATED' if simulated_badge(a) else ''}",
                       stamp)


def anchor_of(name: str) -> str:
    """The campaign's prefix of ids on the page (its table's footnotes): unique per campaign."""
    return "campaign-" + "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)


def _published(a, nodes: list[int]) -> str:
    """The paper's figures for the campaign's graph: a table of their own, titled as published."""
    found = published.metg_table(a.params.pattern, a.params.graphs, a.params.kernel, nodes, ported=published.ports(
        (name, entry.paper_system) for name, entry in registry_entries().items()))
    if isinstance(found, str):
        return f"<p class='muted'>{html.escape(found)}</p>"
    title, columns, rows = found
    return f"<p class='params'>{html.escape(title)}</p>" + html_table(columns, rows)


def campaign_group(sections: list[Section]) -> list[str]:
    """The sections in order, a note that several of them share said once above them all."""
    campaigns: dict[tuple[str, str], set[str]] = {}
    for section in sections:
        for note in section.notes:
            campaigns.setdefault((note.css, note.text), set()).add(note.campaign)
    shared = {key for key, where in campaigns.items() if len(where) > 1}
    parts = notes_html([n for s in sections for n in s.notes if (n.css, n.text) in shared], name_campaign=True)
    for s in sections:
        own = s.head + notes_html([n for n in s.notes if (n.css, n.text) not in shared], name_campaign=False) + s.tail
        parts += [f"<details><summary>{html.escape(s.folded)}</summary>", *own, "</details>"] if s.folded else own
    return parts


def metg_summary(analyses) -> str:
    """Several METG campaigns: one row each, newest first, with its answer's first sentence."""
    rows = [[a.name, a.campaign.get("created", ""), f"{a.params.pattern}/{a.params.kernel}, "
             f"{a.params.steps} x {a.params.width}", (answer(a) or ["no METG"])[0]
             + (" (busy machine)" if a.busy is not None else "")] for a in analyses]
    return ("<p class='muted'>Every METG campaign, newest first; the older ones are folded below.</p>"
            + html_table(["campaign", "created", "graph", "answer"], rows, "cards"))


def _notes(curve, params) -> list[str]:
    """A system's notes, why its METG is unreliable first, said as the console's warning says it."""
    notes = system_notes(curve, params)
    if curve.summary.unreliable:  # system_notes puts it first
        notes[0] = f"METG UNRELIABLE, not a result: {'; '.join(curve.summary.unreliable)}"
    return notes


def metg_table_html(analysis, anchor: str) -> str:
    """The table and its footnotes; `anchor` makes the footnotes' ids unique on the page."""
    columns, rows = metg_table(analysis)
    metg_column, notes_column = 2, columns.index(NOTES)
    keys: dict[str, int] = {}  # note -> its number, in order of first appearance
    about: dict[str, list[str]] = {}  # note -> the systems it concerns
    for row, curve in zip(rows, analysis.curves.values()):
        own = []
        for note in _notes(curve, analysis.params):
            keys.setdefault(note, len(keys) + 1)
            about.setdefault(note, []).append(curve.system)
            own.append(keys[note])
        row[notes_column] = Raw(", ".join(f"<a href='#{anchor}-note{k}'>{k}</a>" for k in own))
        mark = curve.summary.mark
        row[metg_column] = Raw(cell_html(curve.summary.text)
                               + (f" <span class='mark'>{html.escape(mark.strip())}</span>" if mark else ""))
    items = "".join(f"<li id='{anchor}-note{k}'>{html.escape(', '.join(about[note]))}: {html.escape(note)}</li>"
                    for note, k in keys.items())
    footnotes = f"<ol class='footnotes'>{items}</ol>" if items else ""
    return html_table(columns, rows, "metg cards") + footnotes
