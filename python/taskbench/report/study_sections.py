"""The report's study summaries (what the study reproduces, its table, findings and figure) and
the breakdown table of every run that reported one."""

from __future__ import annotations

import html
import re

from taskbench import studies, units
from taskbench.measure.analysis import background_load
from taskbench.report.page import html_table
from taskbench.report.tables import breakdown_table


def _failures(result) -> list[list]:
    return [[r["system"], r["key"], r["status"], r.get("reason")] for r in result.runs if r["status"] != "ok"]


def citation_html(paper: str) -> str:
    """A study's `paper` (authors, "title", venue, figure: finding) with the title set as a title."""
    return re.sub(r"&quot;(.+?)&quot;", r"“<cite>\1</cite>”", html.escape(paper))


def anchor(name: str) -> str:
    return "study-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)


def study_summary(result, figures) -> list[str]:
    """The top of a study's section: everything but the sweeps it ran. `figures` is the report's
    Figures, or None without matplotlib."""
    study = studies.get(result.campaign["params"]["study"])
    params = result.campaign["params"]
    quick = " (quick)" if params.get("quick") else ""
    parts = [f"<h3 id='{anchor(result.name)}'>{html.escape(result.name)}: "
             f"{html.escape(study.title)}{quick}</h3>"]
    if result.campaign["status"] != "done":
        parts.append("<p class='warn'>UNFINISHED: re-run the same command to continue</p>")
    parts.append(f"<p class='cite'>Paper: {citation_html(study.paper)}</p>")
    reps = units.count(params.get("reps") or 0, "repetition")
    how = f"METG median over {reps} per curve" if study.kind == "metg" else f"best of {reps}"
    background = background_load(result.runs)
    noise = f"; background load {background:.2f} cores" if background is not None else ""
    parts.append(f"<p class='muted'>{how}{noise}</p>")
    parts.append(html_table(*study.table(result)))
    # The citation above already gives the paper; the terminal prints it as the first finding.
    findings = [line for line in study.findings(result) if line != f"paper: {study.paper}"]
    if findings:
        parts.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in findings) + "</ul>")
    if figures is not None:
        parts.append(figures.add(f"{result.name}_study", lambda: study.figure(result),
                                 f"{study.title} ({result.name})"))
    failed = _failures(result)
    if failed:
        parts.append(f"<p class='warn'>{units.count(len(failed), 'failed run')}:</p>")
        parts.append(html_table(["system", "run", "status", "reason"], failed))
    return parts


def breakdown_section(runs: list[dict]) -> list[str]:
    columns, rows = breakdown_table(runs)
    parts = ["<h2 id='breakdown'>Breakdown per task</h2>"]
    if not rows:
        return parts + ["<p class='muted'>no run reported a breakdown (`taskbench run --breakdown`, "
                        "`taskbench study discovery`)</p>"]
    parts.append("<p class='muted'>work: in task bodies; overhead: in the runtime with tasks ready; "
                 "idle: no task ready; discovery: creating tasks (time per task summed over threads)</p>")
    return parts + [html_table(columns, rows)]
