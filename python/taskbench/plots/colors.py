"""One colour per system, the same in every figure and every campaign.

The colour depends on the system's name only (never on its position in a campaign), so that
`native` is the same blue whether a figure shows two systems or ten. Names the project ships get
fixed, well-separated colours; any other name gets one from the palette by a hash of the name.
"""

from __future__ import annotations

import zlib

# Ten hues (Tableau 10, the light ones darkened) and a darker shade of nine of them for close
# relatives (native / native_dynamic). Every colour is a line or a marker on white, so each has a
# WCAG contrast of at least 3:1 there (tests/harness/test_report_layout.py checks it); text in a
# system's colour uses text_color_for, darkened to 4.5:1.
PALETTE = ("#1f77b4", "#d45500", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#d1439e",
           "#7f7f7f", "#8f8f00", "#0e97a6", "#08306b", "#b07800", "#116611", "#8b0a0a",
           "#5a2d91", "#4d2b1e", "#8e1a63", "#3d3d3d", "#00606b")
LINE_CONTRAST = 3.0  # WCAG 2.1 non-text contrast (lines, markers, bars)
TEXT_CONTRAST = 4.5  # WCAG 2.1 AA for normal text

# The default systems, and their close relatives, apart from each other.
_FIXED = {
    "serial": 7, "native": 0, "native_dynamic": 10, "native_fifo": 18,
    "openmp_for": 1, "openmp_for_llvm": 11, "openmp_task": 2, "openmp_task_llvm": 12,
    "openmp_taskloop": 8, "openmp_taskloop_llvm": 17,
    "mpi_p2p": 3, "mpi_p2p_mpich": 13, "mpi_bulk": 4, "mpi_bulk_mpich": 14,
    "mpi_openmp": 5, "mpi_openmp_mpich": 15,
    "python_serial": 6, "python_futures": 16, "python_futures_processes": 5,
    "dask": 9, "dask_distributed": 18, "ray": 13,
    # The task runtimes compared with openmp_for, openmp_task and native (docs/task-runtimes.md)
    "tbb_tasks": 4, "tbb_flow": 5, "tbb_flow_persistent": 15, "rust_rayon": 6,
    "rust_rayon_dataflow": 16, "starpu": 3, "starpu_eager": 13, "starpu_mpi": 14,
    # The paper's engines compared with serial, native and dask (docs/python-engines.md)
    "charm4py": 4, "tensorflow": 5, "spark": 3, "spark_standalone": 13,
}


def color_for(system_name: str) -> str:
    """The system's colour as '#rrggbb'."""
    index = _FIXED.get(system_name)
    if index is None:
        index = zlib.crc32(system_name.encode()) % len(PALETTE)
    return PALETTE[index]


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
