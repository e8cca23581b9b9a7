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

from taskbench.report import figure_cache


class Raw(str):
    """A cell's HTML as is (links to footnotes): every other cell's text is escaped."""


# Where a line may break inside a figure's text, and where it may not: a number keeps its unit
# ("887\u00a0ns"), an interval its bounds ("866\u2060–\u2060911": word joiners around the dash);
# a long path or identifier may break after a slash, as it would in prose.
_UNIT = re.compile(r"(?<=\d) (?=\S)")
_RANGE = re.compile(r"(?<=\d)([–-])(?=\d)")
_LONG = 24


def cell_html(value) -> str:
    """A cell's text as HTML that breaks only between words (css.py: never inside a figure)."""
    if isinstance(value, Raw):
        return str(value)
    text = html.escape("" if value is None else str(value))
    text = _RANGE.sub("\u2060\\1\u2060", _UNIT.sub("\u00a0", text))
    return " ".join(word.replace("/", "/<wbr>") if len(word) > _LONG else word for word in text.split(" "))


def html_table(columns, rows, css: str = "") -> str:
    """A table in a box of its own (`scroll`: a table too wide for a phone scrolls there, never
    the page). css "cards": each cell carries its column's name, which css.py shows under 640 px,
    where each row becomes a card."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    cells = [f"<td data-label=\"{html.escape(str(c), quote=True)}\">" if "cards" in css.split() else "<td>"
             for c in columns]
    body = "".join("<tr>" + "".join(f"{td}{cell_html(v)}</td>" for td, v in zip(cells, row)) + "</tr>" for row in rows)
    return f"<div class='scroll'><table{f' class={css!r}' if css else ''}><tr>{head}</tr>{body}</table></div>"


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
    """The page's figures. add() takes one and returns a placeholder; render() draws them all at
    the end, one progress step each (drawing is most of a report's time), saves each as PNG + SVG
    next to the page and inlines it. A figure added twice (same name) is drawn and shown once.
    A figure added with a `stamp` (figure_cache.campaign_stamp: what it is drawn from) is drawn
    once for that data and reused by every later report."""

    def __init__(self, folder: Path):
        self.folder = folder
        # name -> (draw, caption, placeholder, stamp)
        self._pending: dict[str, tuple[Callable, str, str, str | None]] = {}
        self.reused = 0

    def __len__(self) -> int:
        return len(self._pending)

    def add(self, name: str, draw: Callable, caption: str, stamp: str | None = None) -> str:
        """`draw()` returns a matplotlib Figure, or None when the data cannot make it."""
        if name in self._pending:
            return ""
        placeholder = f"<!--figure {len(self._pending)}-->"  # escaped page text never holds "<!--"
        self._pending[name] = (draw, caption, placeholder, stamp)
        return placeholder

    def render(self, page: str, progress=None) -> str:
        for name, (draw, caption, placeholder, stamp) in self._pending.items():
            page = page.replace(placeholder, self._save(name, self._images(name, draw, caption, stamp), caption))
            if progress is not None:
                progress.advance()
        return page

    def _images(self, name: str, draw: Callable, caption: str, stamp: str | None) -> tuple[bytes, bytes]:
        """(PNG, SVG), drawn now or before from the same data; (b"", b"") where the data cannot
        make the figure."""
        found = figure_cache.drawn(stamp, name, caption) if stamp else None
        if found is not None:
            self.reused += 1
            return found
        fig = draw()
        images = (figure_cache.NONE, figure_cache.NONE)
        if fig is not None:
            png, svg = io.BytesIO(), io.BytesIO()
            fig.savefig(png, format="png", dpi=110)
            fig.savefig(svg, format="svg")
            images = (png.getvalue(), svg.getvalue())
        if stamp:
            figure_cache.keep(stamp, name, caption, *images)
        return images

    def _save(self, name: str, images: tuple[bytes, bytes], caption: str) -> str:
        png, svg = images
        if not png:
            return ""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{_slug(name)}.png").write_bytes(png)
        (self.folder / f"{_slug(name)}.svg").write_bytes(svg)
        data = base64.b64encode(png).decode("ascii")
        return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>")
