"""One colour per system, the same in every figure and every campaign.

The colour depends on the system's name only (never on its position in a campaign), so that
`native` is the same blue whether a figure shows two systems or ten: the registry entry's
`color`, an index into the palette (registry/facts.py), or for a system without one (an
external command, an entry that does not say) a palette colour the name hashes to.
"""

from __future__ import annotations

from taskbench.registry import registry_entries
from taskbench.registry.facts import PALETTE, color_index

# Every palette colour is a line or a marker on white (3:1); text in a system's colour uses
# text_color_for, darkened to 4.5:1.
LINE_CONTRAST = 3.0  # WCAG 2.1 non-text contrast (lines, markers, bars)
TEXT_CONTRAST = 4.5  # WCAG 2.1 AA for normal text


def color_for(system_name: str) -> str:
    """The system's colour as '#rrggbb'."""
    entry = registry_entries().get(system_name)
    return PALETTE[color_index(system_name, entry.color if entry is not None else None)]


def _channels(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def contrast_on_white(color: str) -> float:
    """The WCAG 2.1 contrast ratio of '#rrggbb' against white, from 1 (white) to 21 (black)."""
    def linear(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in _channels(color))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def darkened(color: str, ratio: float = TEXT_CONTRAST) -> str:
    """The colour itself when it reaches `ratio` on white, else the same hue darkened until it does."""
    r, g, b = _channels(color)
    scale = 1.0
    while True:
        out = f"#{round(r * scale):02x}{round(g * scale):02x}{round(b * scale):02x}"
        if contrast_on_white(out) >= ratio:
            return out
        scale -= 0.02  # black (21:1) ends the loop


def text_color_for(system_name: str) -> str:
    """The system's colour for text (labels, titles): readable on white (4.5:1)."""
    return darkened(color_for(system_name))
