"""HTML building blocks of the report: tables, and figures saved as PNG + SVG and inlined."""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path


def html_table(columns, rows) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>" for v in row)
                   + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


class Figures:
    """Saves each figure as PNG + SVG next to the page and returns the inlined <figure>."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: list[Path] = []

    def add(self, name: str, fig, caption: str) -> str:
        if fig is None:
            return ""
        self.folder.mkdir(parents=True, exist_ok=True)
        png, svg = self.folder / f"{_slug(name)}.png", self.folder / f"{_slug(name)}.svg"
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
        png.write_bytes(buffer.getvalue())
        fig.savefig(svg, format="svg")
        self.files += [png, svg]
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>")
