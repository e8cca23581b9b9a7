"""taskbench harness: runs the systems, stores every run, computes METG and draws the report."""

__version__ = "0.1.0"
