"""The report: figures as PNG and SVG files, and one self-contained HTML page (figures inlined as
base64 PNG) with the METG tables, the failures and the machine's provenance.

The page reads top down: the METG campaigns of no study first, each opening with its answer (the
parallel system with the smallest METG, its lead, the floor), several of them summarized in one
table and the older ones folded; then each study (what it reproduces, its table, findings and
figure) and the METG sweeps it ran; the figures across campaigns, the breakdowns, failures, peaks
and provenance. A note several campaigns share is said once, naming them; every figure appears
once.
"""

from __future__ import annotations

import contextlib
import html
import sys
from pathlib import Path

from taskbench import units
from taskbench.errors import UserError
from taskbench.measure.analysis import analyze
from taskbench.paths import check_writable, make_parents
from taskbench.reference import published
from taskbench.registry.catalog import registry_entries
from taskbench.report.css import CSS
from taskbench.report.machine_sections import peaks_section, provenance_section
from taskbench.report.metg_sections import campaign_group, metg_campaign, metg_summary
from taskbench.report.page import Figures, html_table
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


def write_report(store, html_path: str | Path, campaign_names: list[str] | None, console,
                 reference_nodes: list[int] | None = None) -> Path:
    """reference_nodes: the paper's published METG at these node counts beside each METG
    campaign (--reference sc20), in a table and curves of their own; None: not shown."""
    html_path = Path(html_path)
    names = list(dict.fromkeys(campaign_names or [c["name"] for c in store.campaigns()]))
    kinds = {n: store.campaign(n)["kind"] for n in names}
    study_results = [results.load(store, n) for n in names if kinds[n] == execute.KIND]
    # A METG study's sweeps are shown under the study, with its figure: not again on their own.
    in_studies = {a.name: a for r in study_results for _, _, a in metg_sweeps(r)}
    metg_names = [n for n in names if kinds[n] == "metg" and n not in in_studies]
    with _progress(console, "reading the campaigns", len(metg_names)) as bar:
        analyses = []
        for n in metg_names:
            analyses.append(analyze(store, n))
            if bar is not None:
                bar.advance(n)
    # Newest first: the question is usually about the latest measurement (the store's order, a
    # campaign made later last, breaks a tie of creation seconds).
    analyses.sort(key=lambda a: a.campaign.get("created") or "")
    analyses.reverse()
    try:
        from taskbench import plots
        from taskbench.plots import trace as plots_trace
    except ImportError:
        plots = plots_trace = None
        console.warn("matplotlib is not installed: the report has tables but no figures")
    figures = Figures(figures_folder(html_path)) if plots else None

    body: list[str] = []
    contents: list[tuple[str, str]] = []
    if analyses:
        # Without a study, the first screen answers the main question: the METG table and which
        # system is fastest at small tasks.
        contents.append(("metg", "METG campaigns"))
        body.append("<h2 id='metg'>METG: which system is fastest at small tasks?</h2>")
        sections = [metg_campaign(store, a, html.escape(a.name), a.name, 3, figures, plots, plots_trace,
                                  reference_nodes) for a in analyses]
        if len(analyses) > 1:
            body.append(metg_summary(analyses))
            for a, section in zip(analyses[1:], sections[1:]):
                section.folded = f"{a.name} (created {a.campaign.get('created', '?')}): {(answer(a) or ['no METG'])[0]}"
        body += campaign_group(sections)
    if study_results:
        body.append("<h2 id='studies'>Studies</h2>")
        for result in study_results:
            contents.append((anchor(result.name), f"Study {result.name}"))
            body += study_section(store, result, figures, plots, plots_trace)
    if figures is not None:
        across = [(n, draw, "Fig. 10 style: METG vs dependencies per task")
                  for n, draw in plots.metg_vs_dependencies(analyses)]
        paper = _published_series if reference_nodes else None
        across += [(n, draw, "Fig. 9 style: METG vs nodes" + ("; dashed: published (Cori, SC20)" if paper else ""))
                   for n, draw in plots.metg_vs_nodes(analyses, paper)]
        if across:
            contents.append(("across", "METG across campaigns"))
            body.append("<h2 id='across'>METG across campaigns</h2>")
            body += [figures.add(n, draw, caption) for n, draw, caption in across]
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

    counted = []
    if study_results:
        sweeps = f" ({units.count(len(in_studies), 'METG sweep')})" if in_studies else ""
        counted.append(units.count(len(study_results), "study", "studies") + sweeps)
    if analyses or not study_results:
        counted.append(units.count(len(analyses), "other METG campaign" if study_results else "METG campaign"))
    summary = f"{' and '.join(counted)} from {store.path}"
    nav = "<nav><ul>" + "".join(f"<li><a href='#{target}'>{html.escape(text)}</a></li>"
                                for target, text in contents) + "</ul></nav>"
    head = [f"<h1>taskbench report</h1><p class='muted'>{html.escape(summary)}</p>", nav]
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>taskbench report</title>"
            f"<style>{CSS}</style></head><body>{''.join(_once(head + body, {TIME_SPLIT_HELP}))}</body></html>\n")
    if figures is not None:
        with _progress(console, "drawing figures", len(figures)) as bar:
            page = figures.render(page, bar)
    made = make_parents(html_path, "--html")
    if made and console is not None:
        console.note(f"made the folder {made} for {html_path}")
    html_path.write_text(page, encoding="utf-8")
    return html_path
