"""The report's studies (what each reproduces, its table, findings and figure, and the METG
sweeps a METG study ran) and the breakdown table of every run that reported one."""

from __future__ import annotations

import html
import re

from taskbench import studies, units
from taskbench.measure.analysis import background_load
from taskbench.report.metg_sections import campaign_group, metg_campaign
from taskbench.report.page import html_table
from taskbench.report.tables import breakdown_table
from taskbench.studies import simulated_study
from taskbench.studies.metg_results import MetgStudyResult


def _failures(result) -> list[list]:
    return [[r["system"], r["key"], r["status"], r.get("reason")] for r in result.runs if r["status"] != "ok"]


def citation_html(paper: str) -> str:
    """A study's `paper` (authors, "title", venue, figure: finding) with the title set as a title."""
    return re.sub(r"&quot;(.+?)&quot;", r"“<cite>\1</cite>”", html.escape(paper))


def anchor(name: str) -> str:
    return "study-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)


def study_summary(result, figures, status: str = "done") -> list[str]:
    """The top of a study's section: everything but the sweeps it ran. `figures` is the report's
    Figures, or None without matplotlib."""
    study = studies.get(result.campaign["params"]["study"])
    params = result.campaign["params"]
    quick = " (quick)" if params.get("quick") else ""
    simulated = " <span class='simulated'>SIMULATED</span>" if params.get("simulated") else ""
    parts = [f"<h3 id='{anchor(result.name)}'>{html.escape(result.name)}: "
             f"{html.escape(study.title)}{quick}{simulated}</h3>"]
    if status == "interrupted":  # Store.status: stored as running, but no process runs it any more
        parts.append("<p class='warn'>interrupted: re-run the same command to continue</p>")
    elif status != "done":
        parts.append(f"<p class='warn'>{html.escape(status)}: its figures are those of the runs made so far</p>")
    parts.append(f"<p class='cite'>Paper: {citation_html(study.paper)}</p>")
    reps = units.count(params.get("reps") or 0, "repetition")
    how = f"METG median over {reps} per curve" if study.kind == "metg" else f"best of {reps}"
    background = background_load(result.runs)
    noise = f"; background load {background:.2f} cores" if background is not None else ""
    parts.append(f"<p class='muted'>{how}{noise}</p>")
    study = simulated_study.shown_as(study, result)
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


def metg_sweeps(result) -> list[tuple[str, str, object]]:
    """(heading, shown as, analysis) of a METG study's stored sweeps, in the figure's axis order:
    "radix 3" and "radix3", or "radix 3 (radix3-heavy)" and "radix3-heavy" for the heavy systems'
    campaign of a value."""
    if not isinstance(result, MetgStudyResult):
        return []
    parameter = studies.get(result.params["study"]).parameter
    by_name = {a.name: a for group in result.analyses.values() for a in group}
    out = []
    for sweep in result.params["sweeps"]:
        if sweep["campaign"] in by_name:
            shown_as = sweep["campaign"].removeprefix(result.name + "-")
            heading = f"{parameter} {sweep['value']}"
            heading += f", {sweep['nodes']} nodes SIMULATED" if "nodes" in sweep else ""
            heading += f" ({shown_as})" if shown_as != sweep["label"] else ""
            out.append((heading, shown_as, by_name[sweep["campaign"]]))
    return out


def study_section(store, result, figures, plots, plots_trace) -> list[str]:
    parts = study_summary(result, figures, store.status(result.campaign))
    sweeps = metg_sweeps(result)
    if not sweeps:
        return parts
    parts.append(f"<h4>The {units.count(len(sweeps), 'METG sweep')} it ran</h4>")
    sections = [metg_campaign(store, a, html.escape(heading), shown_as, 5, figures, plots, plots_trace)
                for heading, shown_as, a in sweeps]
    return parts + campaign_group(sections)


def breakdown_section(runs: list[dict]) -> list[str]:
    columns, rows = breakdown_table(runs)
    parts = ["<h2 id='breakdown'>Breakdown per task</h2>"]
    if not rows:
        return parts + ["<p class='muted'>no run reported a breakdown (`taskbench run --breakdown`, "
                        "`taskbench study discovery`)</p>"]
    parts.append("<p class='muted'>work: in task bodies; overhead: in the runtime with tasks ready; "
                 "idle: no task ready; discovery: creating tasks (time per task summed over threads)</p>")
    return parts + [html_table(columns, rows)]
