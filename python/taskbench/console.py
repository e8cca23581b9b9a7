"""Terminal output: tables, notes and the progress bar; plain tab-separated text under -q.

Tables and results go to stdout; progress, notes and warnings go to stderr, so
`taskbench ... -q > out.tsv` captures only data.
"""

from __future__ import annotations

import sys
import time

try:  # rich is a declared dependency; the fallback keeps a bare checkout usable.
    from rich.console import Console as _RichConsole
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.table import Table as _RichTable
except ImportError:  # pragma: no cover - exercised only without rich
    _RichConsole = None


def _width(stream) -> int | None:
    # rich assumes 80 columns when not on a terminal, which folds every table in a log file.
    return None if stream.isatty() else 200


class Console:
    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self._out = _RichConsole(highlight=False, width=_width(sys.stdout)) if _RichConsole else None
        self._err = _RichConsole(stderr=True, highlight=False, width=_width(sys.stderr)) if _RichConsole else None

    # -- messages (stderr) ------------------------------------------------------------------
    def note(self, text: str) -> None:
        if not self.quiet:
            self._print_err(text)

    def warn(self, text: str) -> None:
        # Warnings survive -q: they are what a script's log needs.
        self._print_err(f"warning: {text}", style="yellow")

    def _print_err(self, text: str, style: str | None = None) -> None:
        if self._err:
            self._err.print(text, style=style, markup=False)
        else:
            print(text, file=sys.stderr)

    # -- data (stdout) ----------------------------------------------------------------------
    def table(self, title: str, columns: list[str], rows: list[list]) -> None:
        if self.quiet or self._out is None:
            # Plain TSV: header line, then one line per row; stable for scripts.
            print("\t".join(columns))
            for row in rows:
                print("\t".join("" if v is None else str(v) for v in row))
            return
        table = _RichTable(title=title, title_justify="left", header_style="bold")
        for col in columns:
            table.add_column(col, overflow="fold")
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row))
        self._out.print(table)

    def line(self, text: str) -> None:
        if self._out and not self.quiet:
            self._out.print(text, markup=False)
        else:
            print(text)

    def progress(self, description: str) -> "ProgressBar":
        return ProgressBar(self, description)


class ProgressBar:
    """A bar whose total grows as the adaptive sweep plans more runs; ETA from rich."""

    def __init__(self, console: Console, description: str):
        self.console = console
        self.description = description
        self.total = 0
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
            self._task = self._progress.add_task(self.description, total=0)
        return self

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)
        return False

    def add(self, n: int) -> None:
        self.total += n
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
