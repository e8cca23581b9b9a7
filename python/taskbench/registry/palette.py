"""The colours a system can be drawn in, and which one is a system's: the registry owns the fact
(its `color` key, an index into PALETTE) so that a system keeps its colour in every figure and
every campaign, whatever else a figure shows; plots/colors.py draws with it.

A system without a `color` gets one from a hash of its name: still the same in every figure.
"""

from __future__ import annotations

import zlib

# Ten hues (Tableau 10, the light ones darkened) and a darker shade of nine of them for close
# relatives (native / native_dynamic). Every colour is a line or a marker on white, so each has a
# WCAG contrast of at least 3:1 there (tests/harness/test_report_layout.py checks it).
PALETTE = ("#1f77b4", "#d45500", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#d1439e",
           "#7f7f7f", "#8f8f00", "#0e97a6", "#08306b", "#b07800", "#116611", "#8b0a0a",
           "#5a2d91", "#4d2b1e", "#8e1a63", "#3d3d3d", "#00606b")


def color_index(name: str, color: int | None) -> int:
    """The system's index into PALETTE: its registry `color`, else one the name hashes to."""
    if color is not None:
        return color
    return zlib.crc32(name.encode()) % len(PALETTE)
