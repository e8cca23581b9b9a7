"""Terminal output: tables, notes and the progress bar; plain tab-separated text off a terminal.

Tables and results go to stdout; progress, notes and warnings go to stderr, so
`taskbench ... -q > out.tsv` captures only data.

A table on a terminal is laid out for its width (rich reads COLUMNS, else the terminal's size):
short headers, a cell wrapped only between words, a cell too long for a few lines and the
`notes` columns moved below the table as keyed lines ("[1] ..."), and the columns a Fit calls
optional hidden (and named) rather than wrapping the others. When stdout is not a terminal
(a pipe, a file) or under -q, a table is tab-separated values instead: one header line with
the full column names, one line per row, every column, notes included; the title goes to
stderr (-q drops it).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Mapping

try:  # rich is a declared dependency; the fallback keeps a bare checkout usable.
    from rich import box
    from rich.cells import cell_len
    from rich.console import Console as _RichConsole
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.table import Table as _RichTable
    from rich.text import Text
except ImportError:  # pragma: no cover - exercised only without rich
    _RichConsole = None

    def cell_len(text: str) -> int:
        return len(text)

NOTES = "notes"
# A cell that would wrap into more lines than this goes below the table as a keyed note.
MAX_CELL_LINES = 3
# A column cut to one line (Fit.cut) is narrowed down to this before any other column wraps.
CUT_MIN_WIDTH = 12
GAP = 2  # blanks between two columns (box.SIMPLE_HEAD without edges, right padding 1)


@dataclass(frozen=True)
class Fit:
    """How a table gives way on a narrow terminal; TSV and the HTML report show it whole.

    short: header on a terminal per column name (the title says what the short one leaves out);
    tsv_only: columns a terminal never shows (the title says what they hold);
    optional: columns hidden, in this order, while the table would not fit unwrapped;
    cut: columns cut to one line (at a word, with "…") instead of wrapping;
    notes: columns printed below the table, each cell as a keyed line ("[1]" in the cell);
    keyed_by: a column naming each row (e.g. "system"): the notes columns' lines are keyed by it
    instead, and leave no cell behind.
    """

    short: Mapping[str, str] = field(default_factory=dict)
    tsv_only: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    cut: tuple[str, ...] = ()
    notes: tuple[str, ...] = (NOTES,)
    keyed_by: str | None = None


@dataclass
class TableLayout:
    """A table laid out for one width: what rich renders, and what goes below it."""

    headers: list[str]
    widths: list[int]
    cut: list[bool]
    rows: list[list[str]]
    notes: list[tuple[str, str]]  # (key, text), in the order of the rows
    hidden: list[str]  # the headers of the optional columns left out at this width


def _text(value) -> str:
    return "" if value is None else str(value)


def _longest_word(text: str) -> int:
    return max((cell_len(w) for w in text.split()), default=0)


def _lines(text: str, width: int) -> int:
    """Lines of `text` wrapped between words at `width`, as rich wraps it."""
    lines, used = 0, 0
    for line in text.splitlines() or [""]:
        lines, used = lines + 1, 0
        for word in line.split():
            n = cell_len(word)
            if used and used + 1 + n > width:
                lines, used = lines + 1, n
            else:
                used += n + (1 if used else 0)
    return lines


def cut_to(text: str, width: int) -> str:
    """`text` on one line of at most `width` cells, cut after a whole word with "…"."""
    text = " ".join(text.split())
    if cell_len(text) <= width:
        return text
    kept = ""
    for word in text.split(" "):
        candidate = f"{kept} {word}" if kept else word
        if cell_len(candidate) + 1 > width:
            break
        kept = candidate
    if not kept:  # the first word alone is too long: cut inside it, there is no other way
        kept = text[:max(width - 1, 0)]
    return kept.rstrip(" ,;:(") + "…"


def table_layout(columns: list[str], rows: list[list], fit: Fit, width: int) -> TableLayout:
    """Lays a table out for `width` terminal cells (see the module's docstring)."""
    cells = [[_text(v) for v in row] for row in rows]
    ncols = len(columns)
    note_cols = {i for i, c in enumerate(columns) if c in fit.notes}
    cut_cols = {i for i, c in enumerate(columns) if c in fit.cut}
    moved = {(r, i) for r, row in enumerate(cells) for i in note_cols if row[i]}
    optional = [columns.index(c) for c in fit.optional if c in columns]
    by = columns.index(fit.keyed_by) if fit.keyed_by in columns else None
    shown = [i for i in range(ncols) if columns[i] not in fit.tsv_only
             and (i not in note_cols or (by is None and any(m[1] == i for m in moved)))]
    hidden: list[int] = []
    headers = [fit.short.get(c, c) for c in columns]
    placeholder = "x" * len(f"[{max(len(cells) * ncols, 1)}]")  # as wide as the longest key

    def shown_text(r: int, i: int) -> str:
        return placeholder if (r, i) in moved else cells[r][i]

    def measure() -> tuple[dict, dict]:
        """Per shown column: its width unwrapped, and the least it takes (its longest word)."""
        natural, least = {}, {}
        for i in shown:
            texts = [shown_text(r, i) for r in range(len(cells))]
            natural[i] = max(cell_len(t) for t in [headers[i], *texts])
            head = _longest_word(headers[i])
            least[i] = (max(head, min(natural[i], CUT_MIN_WIDTH)) if i in cut_cols
                        else max([head, *(_longest_word(t) for t in texts)]))
        return natural, least

    while True:
        natural, least = measure()
        room = width - GAP * (len(shown) - 1)
        if optional and sum(natural.values()) > room:
            column = optional.pop(0)
            if column in shown:
                shown.remove(column)
                hidden.append(column)
            continue
        if sum(least.values()) > room:
            # Still too wide: the cells holding the longest word go below the table (never the
            # first column's, which names the row).
            going = set()
            for i in sorted(shown[1:], key=lambda i: -least[i]):
                going = {(r, i) for r in range(len(cells))
                         if (r, i) not in moved and i not in cut_cols and _longest_word(cells[r][i]) == least[i]}
                if going:
                    break
            if not going:
                break  # the headers alone are too wide: rich folds what it must
            moved |= going
            continue
        widths = _share(natural, least, cut_cols, room)
        tall = [(r, i) for r in range(len(cells)) for i in shown
                if (r, i) not in moved and i not in cut_cols and _lines(cells[r][i], widths[i]) > MAX_CELL_LINES]
        if not tall:
            break
        # The tallest cell goes, with every cell of its column holding the same text (one key).
        r, i = max(tall, key=lambda ri: _lines(cells[ri[0]][ri[1]], widths[ri[1]]))
        moved |= {(q, i) for q in range(len(cells)) if cells[q][i] == cells[r][i]}

    widths = _share(natural, least, cut_cols, width - GAP * (len(shown) - 1))
    keys: dict[str, str] = {}
    notes: list[tuple[str, str]] = []
    for r, row in enumerate(cells):
        for i in range(ncols):
            if (r, i) not in moved or (i not in shown and i not in note_cols):
                continue  # a hidden column's cells are not notes
            if by is not None and i in note_cols:
                # One key per row; with several notes columns, each line names its column.
                first = not any((r, j) in moved for j in sorted(note_cols) if j < i)
                label = f"{headers[i]}: " if len(note_cols) > 1 else ""
                notes.append((f"{row[by]}:" if first else "", label + row[i]))
            elif row[i] not in keys:
                keys[row[i]] = f"[{len(keys) + 1}]"
                notes.append((keys[row[i]], row[i]))
    out_rows = [[keys[row[i]] if (r, i) in moved else cut_to(row[i], widths[i]) if i in cut_cols else row[i]
                 for i in shown] for r, row in enumerate(cells)]
    return TableLayout([headers[i] for i in shown], [widths[i] for i in shown],
                       [i in cut_cols for i in shown], out_rows, notes, [headers[i] for i in hidden])


def _share(natural: dict, least: dict, cut_cols: set, room: int) -> dict:
    """Column widths within `room`: the cut columns narrow first, then the widest column still
    wider than its longest word, one cell at a time (below that, as a last resort, words fold)."""
    widths = dict(natural)
    excess = sum(widths.values()) - room
    for i in cut_cols & set(widths):
        give = max(min(excess, widths[i] - least[i]), 0)
        widths[i] -= give
        excess -= give
    while excess > 0:
        pool = [i for i in widths if widths[i] > least[i]] or [i for i in widths if widths[i] > 1]
        if not pool:
            break
        widest = max(pool, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    return widths


def note_lines(notes: list[tuple[str, str]], out) -> list[str]:
    """Keyed notes as lines of the console's width: the text indented past the keys, or, for a
    note with a word too long for that, starting after its key and wrapped at the full width."""
    indent = max((cell_len(key) for key, _ in notes), default=0) + 1
    lines = []
    for key, text in notes:
        if _longest_word(text) <= out.width - indent:
            wrapped = Text(text).wrap(out, out.width - indent)
            lines += [(key if n == 0 else "").ljust(indent) + str(line).rstrip() for n, line in enumerate(wrapped)]
        else:
            lines += [str(line).rstrip() for line in Text(f"{key} {text}").wrap(out, out.width, overflow="fold")]
    return lines


def _width(stream) -> int | None:
    # rich assumes 80 columns when not on a terminal, which folds every note in a log file.
    return None if stream.isatty() else 200


class Console:
    def __init__(self, quiet: bool = False, out=None):
        """out: a rich Console to print tables to as on a terminal (tests pass one of a given
        width); by default stdout's, when stdout is a terminal."""
        self.quiet = quiet
        if out is None and _RichConsole is not None and sys.stdout.isatty():
            out = _RichConsole(highlight=False)
        self._out = out
        self._err = _RichConsole(stderr=True, highlight=False, width=_width(sys.stderr)) if _RichConsole else None

    @property
    def tabular(self) -> bool:
        """Tables print as tab-separated values (-q, or stdout not a terminal)."""
        return self.quiet or self._out is None

    # -- messages (stderr) ------------------------------------------------------------------
    def note(self, text: str) -> None:
        if not self.quiet:
            self._print_err(text)

    def warn(self, text: str) -> None:
        # Warnings survive -q: they are what a script's log needs.
        self._print_err(f"warning: {text}", style="yellow")

    def _print_err(self, text: str, style: str | None = None) -> None:
        if self._err:
            # The style on the Text, not on print(): rich applies print's style to all it writes,
            # a live progress bar's redraw below the line included.
            self._err.print(Text(text, style=style or ""))
        else:
            print(text, file=sys.stderr)

    # -- data (stdout) ----------------------------------------------------------------------
    def table(self, title: str, columns: list[str], rows: list[list], fit: Fit | None = None) -> None:
        fit = fit or Fit()
        if self.tabular:
            self.note(title)  # stdout keeps only the header line and the rows
            print("\t".join(_tsv(c) for c in columns))
            for row in rows:
                print("\t".join(_tsv(v) for v in row))
            return
        layout = table_layout(columns, rows, fit, self._out.width)
        self._out.print(Text(title, style="bold"))
        table = _RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, GAP - 1, 0, 0),
                           header_style="bold")
        for header, width, cut in zip(layout.headers, layout.widths, layout.cut):
            table.add_column(header, width=width, no_wrap=cut, overflow="ellipsis" if cut else "fold")
        for row in layout.rows:
            table.add_row(*row)
        self._out.print(table)
        if layout.hidden:
            self._out.print(Text(f"not shown at {self._out.width} columns: {', '.join(layout.hidden)} "
                                 "(a pipe or -q prints every column)", style="dim"))
        for line in note_lines(layout.notes, self._out):
            self._out.print(line, markup=False, highlight=False, soft_wrap=True)

    def line(self, text: str) -> None:
        if self._out and not self.quiet:
            self._out.print(text, markup=False)
        else:
            print(text)

    def progress(self, description: str, expected: int = 0) -> "ProgressBar":
        return ProgressBar(self, description, expected)


def _tsv(value) -> str:
    # A tab or a line break inside a cell would shift every later field.
    return " ".join(_text(value).replace("\t", " ").splitlines())


class ProgressBar:
    """A bar over the runs of an adaptive sweep: its total is what the last sweep of the same kind
    made (`expected`), or the runs added so far where they are more; so it does not sit near
    full while the sweep plans more, and rich's ETA means something. ETA from rich."""

    def __init__(self, console: Console, description: str, expected: int = 0):
        self.console = console
        self.description = description
        self.expected = expected
        self.added = 0
        self.total = expected
        self.done = 0
        self._progress = None
        self._task = None
        self._last_plain = 0.0

    def __enter__(self):
        if not self.console.quiet and self.console._err is not None:
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TimeElapsedColumn(),
                                      TextColumn("ETA"), TimeRemainingColumn(),
                                      console=self.console._err, transient=False)
            self._progress.__enter__()
            self._task = self._progress.add_task(self.description, total=self.total)
        return self

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.update(self._task, total=self.done)  # it ended where it ended: full
            self._progress.__exit__(*exc)
        return False

    def add(self, n: int) -> None:
        self.added += n
        self.total = max(self.expected, self.added)
        if self._progress is not None:
            self._progress.update(self._task, total=self.total)

    def advance(self, label: str = "") -> None:
        self.done += 1
        if self._progress is not None:
            text = f"{self.description} {label}".strip()
            self._progress.update(self._task, advance=1, description=text)
        elif not self.console.quiet and time.monotonic() - self._last_plain > 5:
            self._last_plain = time.monotonic()
            print(f"{self.description}: {self.done}/{self.total}", file=sys.stderr)
