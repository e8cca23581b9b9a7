"""The machine's peak throughput for a kernel: what the 100% of a run is, from stored runs
(table.py), and how `taskbench peak` measures it (runs.py)."""

from taskbench.measure.peak.table import OwnPeak, PeakTable, load_peaks

__all__ = ["OwnPeak", "PeakTable", "load_peaks"]
