"""HTML building blocks of the report: tables, notes said once, and figures saved as PNG + SVG
and inlined."""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


def _cell(value) -> str:
    # A number keeps its unit on its line: "44.5 ns – 60 ns" wraps at the dash, not inside "44.5 ns".
    text = re.sub(r"(?<=\d) (?=\S)", "\u00a0", html.escape("" if value is None else str(value)))
    return f"<td>{text}</td>"


def html_table(columns, rows) -> str:
    # A notes column is prose: wide enough to read, however many short columns share the row.
    head = "".join(f"<th{' class=notes' if c == 'notes' else ''}>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f"<div class='scroll'><table><tr>{head}</tr>{body}</table></div>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


@dataclass(frozen=True)
class Note:
    """One remark about a campaign (or one of its systems), said once however many campaigns
    and systems it concerns (notes_html)."""
    css: str  # "warn", "unreliable" or "muted"
    text: str
    campaign: str  # how the page names the campaign it is about
    system: str = ""  # "" for the campaign as a whole


def notes_html(notes: list[Note], name_campaign: bool) -> list[str]:
    """One paragraph per distinct (css, text), naming its systems, each with its campaigns when
    `name_campaign` (notes gathered over several campaigns)."""
    grouped: dict[tuple[str, str], dict[str, list[str]]] = {}
    for note in notes:
        where = grouped.setdefault((note.css, note.text), {})
        campaigns = where.setdefault(note.system, [])
        if note.campaign not in campaigns:
            campaigns.append(note.campaign)
    lines = []
    for (css, text), where in grouped.items():
        if name_campaign:  # "serial (radix0, radix3); native (radix0)", or the campaigns alone
            about = "; ".join(f"{s} ({', '.join(c)})" if s else ", ".join(c) for s, c in where.items())
        else:
            about = ", ".join(s for s in where if s)
        lines.append(f"<p class='{css}'>{html.escape(f'{about}: {text}' if about else text)}</p>")
    return lines


class Figures:
    """The page's figures. add() plans one and returns a placeholder; render() draws them all at
    the end, one progress step each (drawing is most of a report's time), saves each as PNG + SVG
    next to the page and inlines it. A figure planned twice (same name) is drawn and shown once."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._planned: dict[str, tuple[Callable, str, str]] = {}  # name -> (draw, caption, placeholder)

    def __len__(self) -> int:
        return len(self._planned)

    def add(self, name: str, draw: Callable, caption: str) -> str:
        """`draw()` returns a matplotlib Figure, or None when the data cannot make it."""
        if name in self._planned:
            return ""
        placeholder = f"<!--figure {len(self._planned)}-->"  # escaped page text never holds "<!--"
        self._planned[name] = (draw, caption, placeholder)
        return placeholder

    def render(self, page: str, progress=None) -> str:
        for name, (draw, caption, placeholder) in self._planned.items():
            page = page.replace(placeholder, self._save(name, draw(), caption))
            if progress is not None:
                progress.advance()
        return page

    def _save(self, name: str, fig, caption: str) -> str:
        if fig is None:
            return ""
        self.folder.mkdir(parents=True, exist_ok=True)
        png, svg = self.folder / f"{_slug(name)}.png", self.folder / f"{_slug(name)}.svg"
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
        png.write_bytes(buffer.getvalue())
        fig.savefig(svg, format="svg")
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>")
