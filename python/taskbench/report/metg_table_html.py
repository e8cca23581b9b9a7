"""A METG campaign's table on the page: the terminal's columns (tables.metg_table), its notes as
numbered footnotes under it. A note is a paragraph; in a cell it squeezed every other column to a
few letters a line, so the cell holds only the numbers of its notes, and a note several systems
share is one footnote naming them."""

from __future__ import annotations

import html

from taskbench.console import NOTES
from taskbench.report.page import Raw, cell_html, html_table
from taskbench.report.tables import metg_table, system_notes


def _notes(curve, kernel: str) -> list[str]:
    """A system's notes, why its METG is unreliable first, said as the console's warning says it."""
    notes = system_notes(curve, kernel)
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
        for note in _notes(curve, analysis.params.kernel):
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
