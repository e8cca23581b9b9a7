"""The report: figures as PNG and SVG files, and one self-contained HTML page (figures inlined as
base64 PNG) with the METG tables, the failures and the machine's provenance.

writer.py writes the page, top down: the answer, the measured and the simulated METG campaigns
(metg_sections.py, with their tables' footnotes), the checks
(check_sections.py), the studies (study_sections.py), the figures across campaigns, the
breakdowns, failures, and the machine (machine_sections.py); page.py has its building blocks,
tables.py the tables the terminal shows too, trace_sections.py the traces at METG, css.py its
style, figure_cache.py the figures drawn once per campaign's data.
"""

from taskbench.report.writer import check_html_path, write_report

__all__ = ["check_html_path", "write_report"]
