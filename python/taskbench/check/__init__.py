"""`taskbench check`, the regression gate (docs/regression-gate.md): the systems it pairs and the
campaign it measures (gate.py), its runs, both sides interleaved (sampling.py), the METGs they
pair on one grid of sizes (metg_grid.py), the verdicts (verdicts.py) on the statistics of
regression.py, the baseline file (baseline.py), and what it writes besides its table (outputs.py:
Markdown, JSON for benchmark trackers). Its section of the HTML report is
report/check_sections.py."""
