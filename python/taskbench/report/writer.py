"""The report page, written top down (the package's docstring says what the report is): the
answer first (the newest METG campaign's in one sentence, with its METG bars and their interval
whiskers); then the measured METG campaigns of no study, each with
its table (notes as numbered footnotes), several of them summarized in one table and the older
ones folded; the simulated campaigns apart, labelled SIMULATED, with their METG vs nodes beside
the published curve; the `taskbench check` runs and their verdicts (their pilot sweeps with them,
never as METG campaigns); each study (what it reproduces, its table, findings and figure) and the
METG sweeps it ran; the figures across the measured campaigns, the breakdowns, failures, peaks
and provenance. A note several campaigns share is said once, naming them; every figure appears
once. Analyses and figures are computed once per campaign's data and reused
(measure/analysis_cache.py, figure_cache.py).
"""

from __future__ import annotations

import contextlib
import html
import importlib
import importlib.util
import sys
from pathlib import Path

from taskbench import units
from taskbench.errors import UserError
from taskbench.measure import analysis_cache
from taskbench.paths import check_writable, make_parents
from taskbench.reference import published
from taskbench.registry.catalog import registry_entries
from taskbench.report import figure_cache
from taskbench.report.check_sections import check_section, pilots_of
from taskbench.report.css import CSS
from taskbench.report.machine_sections import peaks_section, provenance_section
from taskbench.report.metg_sections import campaign_group, metg_bars, metg_campaign, metg_summary
from taskbench.report.page import Figures, cell_html, html_table
from taskbench.report.study_sections import anchor, breakdown_section, metg_sweeps, study_section
from taskbench.report.tables import answer, failures_table
from taskbench.report.trace_sections import TIME_SPLIT_HELP
from taskbench.studies import execute, results


def _progress(console, what: str, total: int):
    """A progress bar over `total` steps of building the report, on a terminal only: a log gets
    no bar."""
    if total and console is not None and sys.stderr.isatty():
        bar = console.progress(what)
        bar.add(total)
        return bar
    return contextlib.nullcontext()


def _once(parts: list[str], texts: set[str]) -> list[str]:
    """`parts` with only the first copy of each of `texts` (explanations every campaign would repeat)."""
    seen: set[str] = set()
    kept = []
    for part in parts:
        if part in texts and part in seen:
            continue
        seen.add(part)
        kept.append(part)
    return kept


def figures_folder(html_path: Path) -> Path:
    return html_path.with_name(html_path.stem + "_figures")


def check_html_path(html_path: str | Path, console) -> None:
    """The page and its figures' folder beside it, checked before anything is read or run: a
    sweep is never lost to a report it cannot write."""
    check_writable(html_path, "--html", console)
    folder = figures_folder(Path(html_path))
    if folder.exists() and not folder.is_dir():
        raise UserError(f"--html {html_path}: its figures go to {folder}, which is a file")
    if folder.is_dir():
        check_writable(folder / "figure.png", f"--html {html_path}: its figures' folder", console)


def _published_series(pattern: str, systems: list[str]) -> list[tuple[str, list]]:
    """The paper's METG-vs-nodes series of the paper rows these systems run (registry
    `paper_system`), nothing for a system that runs none."""
    entries = registry_entries()
    shown = tuple({entries[s].paper_system for s in systems if s in entries} - {""})
    return published.metg_vs_nodes(pattern, shown) if shown else []


class _Later:
    """A module imported when first used: a report whose figures are all drawn already
    (figure_cache.py) never loads matplotlib."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)


def _split(store, names: list[str]) -> tuple[list[str], list[dict], dict[str, list[str]]]:
    """(the METG campaigns of no check, the checks to show, each check's pilot sweeps). A pilot
    named alone brings its check: it is shown there, never as a METG campaign."""
    pilots = pilots_of(store.campaigns())
    parent = {pilot: check for check, found in pilots.items() for pilot in found}
    checks = list(dict.fromkeys([n for n in names if store.campaign(n)["kind"] == "check"]
                                + [parent[n] for n in names if n in parent]))
    return [n for n in names if n not in parent], [store.campaign(n) for n in checks], pilots


def write_report(store, html_path: str | Path, campaign_names: list[str] | None, console,
                 reference_nodes: list[int] | None = None) -> Path:
    """reference_nodes: the paper's published METG at these node counts beside each METG
    campaign (--reference sc20), in a table and curves of their own; None: not shown."""
    html_path = Path(html_path)
    names = list(dict.fromkeys(campaign_names or [c["name"] for c in store.campaigns()]))
    names, checks, pilots = _split(store, names)
    kinds = {n: store.campaign(n)["kind"] for n in names}
    study_results = [results.load(store, n) for n in names if kinds[n] == execute.KIND]
    # A METG study's sweeps are shown under the study, with its figure: not again on their own.
    in_studies = {a.name: a for r in study_results for _, _, a in metg_sweeps(r)}
    metg_names = [n for n in names if kinds[n] == "metg" and n not in in_studies]
    with _progress(console, "reading the campaigns", len(metg_names)) as bar:
        analyses = []
        for n in metg_names:
            analyses.append(analysis_cache.analysis(store, n))
            if bar is not None:
                bar.advance(n)
    # Newest first: the question is usually about the latest measurement (the store's order, a
    # campaign made later last, breaks a tie of creation seconds).
    analyses.sort(key=lambda a: a.campaign.get("created") or "")
    analyses.reverse()
    # Simulated seconds and measured ones never share a table, a ranking or a figure.
    measured = [a for a in analyses if not a.params.simulation]
    simulated = [a for a in analyses if a.params.simulation]
    if importlib.util.find_spec("matplotlib") is None:
        plots = plots_trace = None
        console.warn("matplotlib is not installed: the report has tables but no figures")
    else:
        from taskbench import plots
        plots_trace = _Later("taskbench.plots.trace")
    figures = Figures(figures_folder(html_path)) if plots else None

    body: list[str] = []
    contents: list[tuple[str, str]] = []
    lead = (measured or simulated or [None])[0]
    if lead is not None:
        body.append(_answer_box(store, lead, figures, plots, reference_nodes))
    if measured:
        # Without a study, the first screen answers the main question: the METG table and which
        # system is fastest at small tasks.
        contents.append(("metg", "METG campaigns"))
        body.append("<h2 id='metg'>METG: which system is fastest at small tasks?</h2>")
        body += _campaigns(store, measured, figures, plots, plots_trace, reference_nodes, lead, fold=True)
    if simulated:
        contents.append(("simulated", "Simulated METG campaigns"))
        body.append("<h2 id='simulated'>Simulated METG campaigns <span class='simulated'>SIMULATED</span></h2>"
                    "<p class='muted'>Simulated seconds on a SimGrid platform, not measured on this machine "
                    "(docs/simulation.md): never ranked or drawn with the measured figures.</p>")
        body += _campaigns(store, simulated, figures, plots, plots_trace, reference_nodes, lead, fold=False)
        if figures is not None:
            stamp = "+".join(figure_cache.campaign_stamp(store, a.name) for a in simulated)
            body += [figures.add(n, draw, "SIMULATED: METG vs nodes (Fig. 9 style); dashed: published (Cori, SC20)",
                                 stamp) for n, draw in plots.metg_vs_nodes(simulated, _published_series, "SIMULATED")]
    if checks:
        contents.append(("checks", "Regression checks"))
        body += check_section(store, checks, pilots)
    if study_results:
        body.append("<h2 id='studies'>Studies</h2>")
        for result in study_results:
            contents.append((anchor(result.name), f"Study {result.name}"))
            body += study_section(store, result, figures, plots, plots_trace)
    if figures is not None and measured:
        stamp = "+".join(figure_cache.campaign_stamp(store, a.name) for a in measured) + f"/{reference_nodes}"
        across = [(n, draw, "Fig. 10 style: METG vs dependencies per task")
                  for n, draw in plots.metg_vs_dependencies(measured)]
        paper = _published_series if reference_nodes else None
        across += [(n, draw, "Fig. 9 style: METG vs nodes" + ("; dashed: published (Cori, SC20)" if paper else ""))
                   for n, draw in plots.metg_vs_nodes(measured, paper)]
        if across:
            contents.append(("across", "METG across campaigns"))
            body.append("<h2 id='across'>METG across campaigns</h2>")
            body += [figures.add(n, draw, caption, stamp) for n, draw, caption in across]
    every = [*in_studies.values(), *analyses]
    body += breakdown_section([r for n in dict.fromkeys([*names, *in_studies]) for r in store.runs(n, status="ok")])
    columns, rows = failures_table(every)
    body.append(f"<h2 id='failures'>Failed runs ({len(rows)})</h2>")
    body.append(html_table(columns, rows) if rows else "<p class='muted'>none</p>")
    body.append("<h2 id='peaks'>Peaks</h2>" + peaks_section(store))
    sources = [(r.campaign, r.runs) for r in study_results] + [(a.campaign, a.runs) for a in every]
    body.append("<h2 id='provenance'>Provenance</h2>" + provenance_section(sources))
    contents += [("breakdown", "Breakdown per task"), ("failures", "Failed runs"), ("peaks", "Peaks"),
                 ("provenance", "Provenance")]

    summary = f"{_counted(study_results, in_studies, measured, simulated, checks)} from {store.path}"
    nav = "<nav><ul>" + "".join(f"<li><a href='#{target}'>{html.escape(text)}</a></li>"
                                for target, text in contents) + "</ul></nav>"
    head = [f"<h1>taskbench report</h1><p class='muted'>{html.escape(summary)}</p>"]
    page = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>taskbench report</title>"
            f"<style>{CSS}</style></head><body>{''.join(_once(head + body[:1] + [nav] + body[1:], {TIME_SPLIT_HELP}))}"
            f"</body></html>\n")
    if figures is not None:
        with _progress(console, "drawing figures", len(figures)) as bar:
            page = figures.render(page, bar)
    made = make_parents(html_path, "--html")
    if made and console is not None:
        console.note(f"made the folder {made} for {html_path}")
    html_path.write_text(page, encoding="utf-8")
    return html_path


def _answer_box(store, a, figures, plots, reference_nodes) -> str:
    """The page's first screen: the newest campaign's answer in one sentence, and its METG bars
    with their interval whiskers."""
    first = (answer(a) or [f"{a.name}: no parallel system has a METG"])[0]
    simulated = "SIMULATED: " if a.params.simulation else ""
    source = (f"{simulated}from {a.name} (created {a.campaign.get('created', '?')}); its table, notes and "
              f"figures follow")
    bars = ""
    if figures is not None:
        stamp = figure_cache.campaign_stamp(store, a.name) + f"/reference={reference_nodes}"
        bars = metg_bars(figures, plots, a, stamp)
    # Its figures hold together as in the tables ("1.84 µs", "(8.07–23.0)" never split at a line's end).
    return (f"<section class='lead' id='answer'><p class='answer'>{cell_html(simulated + first)}</p>"
            f"<p class='muted'>{html.escape(source)} (<a href='#{'simulated' if simulated else 'metg'}'>below</a>)</p>"
            f"{bars}</section>")


def _campaigns(store, analyses, figures, plots, plots_trace, reference_nodes, lead, fold: bool) -> list[str]:
    """Several METG campaigns' sections: a summary of them first, the older ones folded."""
    sections = [metg_campaign(store, a, html.escape(a.name), a.name, 3, figures, plots, plots_trace,
                              reference_nodes, lead=a is lead) for a in analyses]
    parts = []
    if len(analyses) > 1:
        parts.append(metg_summary(analyses))
        if fold:
            for a, section in zip(analyses[1:], sections[1:]):
                section.folded = (f"{a.name} (created {a.campaign.get('created', '?')}): "
                                  f"{(answer(a) or ['no METG'])[0]}")
    return parts + campaign_group(sections)


def _counted(study_results, in_studies, measured, simulated, checks) -> str:
    counted = []
    if study_results:
        sweeps = f" ({units.count(len(in_studies), 'METG sweep')})" if in_studies else ""
        counted.append(units.count(len(study_results), "study", "studies") + sweeps)
    if measured or not (study_results or simulated or checks):
        counted.append(units.count(len(measured), "other METG campaign" if study_results else "METG campaign"))
    if simulated:
        counted.append(units.count(len(simulated), "simulated METG campaign"))
    if checks:
        counted.append(units.count(len(checks), "regression check"))
    return " and ".join(counted) if len(counted) < 3 else ", ".join(counted[:-1]) + " and " + counted[-1]
