"""The report's study sections (a table, the findings and a figure per study campaign) and the
breakdown table of every run that reported one."""

from __future__ import annotations

import html

from taskbench import studies
from taskbench.measure.analysis import background_load
from taskbench.report.page import html_table
from taskbench.report.tables import breakdown_table


def _failures(result) -> list[list]:
    return [[r["system"], r["key"], r["status"], r.get("reason")] for r in result.runs if r["status"] != "ok"]


def study_sections(results, figures) -> list[str]:
    """`figures` is the report's Figures, or None without matplotlib."""
    if not results:
        return []
    parts = ["<h2>Studies</h2>"]
    for result in results:
        study = studies.get(result.campaign["params"]["study"])
        quick = " (quick)" if result.campaign["params"].get("quick") else ""
        unfinished = "" if result.campaign["status"] == "done" else " (UNFINISHED: re-run the same command to continue)"
        parts.append(f"<h3>{html.escape(result.name)}: {html.escape(study.title)}{quick}{html.escape(unfinished)}</h3>")
        background = background_load(result.runs)
        noise = f"; background load {background:.2f} cores" if background is not None else ""
        parts.append(f"<p class='muted'>paper: {html.escape(study.paper)}; best of "
                     f"{result.campaign['params'].get('reps')} repetitions{noise}</p>")
        parts.append(html_table(*study.table(result)))
        findings = study.findings(result)
        if findings:
            parts.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in findings) + "</ul>")
        failed = _failures(result)
        if failed:
            parts.append(f"<p class='warn'>{len(failed)} failed run(s):</p>")
            parts.append(html_table(["system", "run", "status", "reason"], failed))
        if figures is not None:
            parts.append(figures.add(f"{result.name}_study", study.figure(result),
                                     f"{study.title} ({result.name})"))
    return parts


def breakdown_section(runs: list[dict]) -> list[str]:
    columns, rows = breakdown_table(runs)
    parts = ["<h2>Breakdown per task</h2>"]
    if not rows:
        return parts + ["<p class='muted'>no run reported a breakdown (`taskbench run --breakdown`, "
                        "`taskbench study discovery`)</p>"]
    parts.append("<p class='muted'>work: in task bodies; overhead: in the runtime with tasks ready; "
                 "idle: no task ready; discovery: creating tasks (time per task summed over threads)</p>")
    return parts + [html_table(columns, rows)]
