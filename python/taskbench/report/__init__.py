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
from dataclasses import dataclass, field
from pathlib import Path

from taskbench import studies, units
from taskbench.measure.analysis import analyze
from taskbench.measure.kernels import unit
from taskbench.measure.reliability import busy_line
from taskbench.paths import make_parents
from taskbench.report.page import Figures, Note, html_table, notes_html
from taskbench.report.study_sections import anchor, breakdown_section, study_summary
from taskbench.report.tables import answer, failures_table, metg_table, notes_below_table
from taskbench.report.trace_sections import TIME_SPLIT_HELP, trace_section
from taskbench.studies import execute, results
from taskbench.studies.metg_results import MetgStudyResult

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 84em; color: #222; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { margin-top: 1.4em; }
h4 { margin: 1.4em 0 0.3em; font-size: 1.1em; }
h5 { margin: 1.4em 0 0.3em; padding-top: 0.6em; border-top: 1px solid #e4e4e4; font-size: 1.05em; }
h6 { margin: 1em 0 0.3em; font-size: 0.95em; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; font-size: 0.9em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td, th { overflow-wrap: anywhere; }
th.notes { min-width: 12em; }
details > summary { cursor: pointer; margin: 0.8em 0 0.4em; font-weight: 600; }
th { background: #f3f3f3; }
figure { display: inline-block; margin: 0.4em 0; vertical-align: top; max-width: 100%; }
figcaption { font-size: 0.85em; color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
.row figure { flex: 1 1 30em; max-width: 704px; margin: 0; }
img { max-width: 100%; height: auto; }
.warn { color: #8a4b00; }
.answer { margin: 0.3em 0; font-size: 1.05em; }
.unreliable { color: #b00020; font-weight: bold; }
.muted { color: #595959; font-size: 0.9em; }
.cite { margin: 0.3em 0; }
.params { color: #444; margin: 0.2em 0 0.4em; font-size: 0.9em; overflow-wrap: anywhere; }
nav ul { margin: 0.3em 0; padding-left: 1.2em; }
dl.provenance { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em;
                margin: 0.6em 0 1.4em; font-size: 0.9em; }
dl.provenance dt { font-weight: 600; }
dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
"""


@dataclass
class _Section:
    """A METG campaign's part of the page; its notes are placed by _campaign_group."""
    head: list[str]
    notes: list[Note] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    folded: str = ""  # the <summary> of an older campaign's folded section; "": shown open


def _params_line(a) -> str:
    """The campaign's graph and settings, under its heading."""
    p = a.params
    radix = f", radix {p.radix}" if p.radix is not None else ""
    background = a.background_load
    noise = f", background load {background:.2f} cores" if background is not None else ""
    return (f"{p.pattern}{radix}, {p.kernel}, {units.count(p.steps, 'step')} x {p.width} wide, "
            f"{units.count(p.reps, 'repetition')}, threshold {p.threshold:.0%}{noise}")


def _curve_notes(a, shown_as: str) -> list[Note]:
    notes = []
    for curve in a.curves.values():
        if curve.summary.unreliable:
            notes.append(Note("unreliable", f"METG UNRELIABLE, not a result: {'; '.join(curve.summary.unreliable)}",
                              shown_as, curve.system))
        notes += [Note("warn", w, shown_as, curve.system) for w in curve.summary.warnings
                  if w not in curve.summary.unreliable]
        if curve.noisy_points:
            sizes = ", ".join(f"-iter {it} ({s:.0%})" for it, s in curve.noisy_points)
            notes.append(Note("warn", f"repetitions disagree by more than 25% at {sizes}", shown_as, curve.system))
    return notes


def _metg_campaign(store, a, heading: str, shown_as: str, level: int, figures, plots, plots_trace) -> _Section:
    """`heading` is HTML; `shown_as` names the campaign in shared notes; figures is None without
    matplotlib."""
    head = [f"<h{level}>{heading}</h{level}>"]
    head += [f"<p class='answer'>{html.escape(line)}</p>" for line in answer(a)]
    named = "" if shown_as == a.name else f"campaign {a.name}: "
    head.append(f"<p class='params'>{html.escape(named + _params_line(a))}</p>")
    if a.campaign.get("status") != "done":
        head.append("<p class='warn'>UNFINISHED: `taskbench metg --resume` continues it</p>")
    head.append(html_table(*metg_table(a)))
    head.append("".join(f"<p class='params'>{html.escape(line)}</p>" for line in notes_below_table(a)))
    tail = []
    if a.busy is not None:  # beside the figures it doubts, not only in the line above
        head.append(f"<p class='unreliable'>{html.escape(busy_line(a.busy))}</p>")
    if figures is not None:
        head.append("<div class='row'>"
                    + figures.add(f"{a.name}_metg", lambda: plots.metg_bars(a),
                                  f"METG per system, smallest first ({a.name})")
                    + figures.add(f"{a.name}_fig7_efficiency", lambda: plots.efficiency_vs_granularity(a),
                                  f"Fig. 7 style: efficiency vs task granularity ({a.name})")
                    + "</div>")
        tail.append(figures.add(f"{a.name}_fig6_throughput", lambda: plots.throughput_vs_size(a),
                                f"Fig. 6 style: {unit(a.params.kernel)} vs problem size ({a.name})"))
    traces, trace_notes = trace_section(store, a, figures, plots_trace, shown_as, level + 1)
    return _Section(head, _curve_notes(a, shown_as) + trace_notes, tail + traces)


def _campaign_group(sections: list[_Section]) -> list[str]:
    """The sections in order, a note that several of them share said once above them all."""
    campaigns: dict[tuple[str, str], set[str]] = {}
    for section in sections:
        for note in section.notes:
            campaigns.setdefault((note.css, note.text), set()).add(note.campaign)
    shared = {key for key, where in campaigns.items() if len(where) > 1}
    parts = notes_html([n for s in sections for n in s.notes if (n.css, n.text) in shared], name_campaign=True)
    for s in sections:
        own = s.head + notes_html([n for n in s.notes if (n.css, n.text) not in shared], name_campaign=False) + s.tail
        parts += [f"<details><summary>{html.escape(s.folded)}</summary>", *own, "</details>"] if s.folded else own
    return parts


def _metg_summary(analyses) -> str:
    """Several METG campaigns: one row each, newest first, with its answer's first sentence."""
    rows = [[a.name, a.campaign.get("created", ""), f"{a.params.pattern}/{a.params.kernel}, "
             f"{a.params.steps} x {a.params.width}", (answer(a) or ["no METG"])[0]
             + (" (busy machine)" if a.busy is not None else "")] for a in analyses]
    return ("<p class='muted'>Every METG campaign, newest first; the older ones are folded below.</p>"
            + html_table(["campaign", "created", "graph", "answer"], rows))


def _sweeps(result) -> list[tuple[str, str, object]]:
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
            heading = f"{parameter} {sweep['value']}" + (f" ({shown_as})" if shown_as != sweep["label"] else "")
            out.append((heading, shown_as, by_name[sweep["campaign"]]))
    return out


def _study(store, result, figures, plots, plots_trace) -> list[str]:
    parts = study_summary(result, figures)
    sweeps = _sweeps(result)
    if not sweeps:
        return parts
    parts.append(f"<h4>The {units.count(len(sweeps), 'METG sweep')} it ran</h4>")
    sections = [_metg_campaign(store, a, html.escape(heading), shown_as, 5, figures, plots, plots_trace)
                for heading, shown_as, a in sweeps]
    return parts + _campaign_group(sections)


def _provenance(sources) -> str:
    """One definition list per machine and build: the campaigns that share them are listed together.
    `sources` holds (campaign, its runs)."""
    groups: dict[tuple, list[tuple[dict, str]]] = {}
    for c, runs in sources:
        m = c["machine"]
        ok = next((r for r in runs if r["status"] == "ok" and r.get("report")), None) or {}
        tb = ok.get("report", {}).get("taskbench", {}) if ok else {}
        latency = " / ".join(f"{x:.0f} ns" for x in m.get("core_to_core_one_way_ns") or [] if x is not None)
        key = (m.get("hostname"), m.get("cpu_model"), m.get("available_cpus"),
               f"{(m.get('memory_bytes') or 0) / 2**30:.1f} GiB", m.get("os"), ok.get("compiler"),
               tb.get("build_flags"), tb.get("blas"), c.get("git_revision"))
        groups.setdefault(key, []).append((c, latency))
    labels = ("host", "CPU", "cores", "memory", "OS", "compiler", "build flags", "BLAS", "git revision")
    out = []
    for key, members in groups.items():
        # Measured per campaign: the core-to-core latency goes with each campaign.
        campaigns = "<br>".join(html.escape(f"{c['name']}: created {c['created']}"
                                            + (f", core-to-core {latency} (start / end)" if latency else ""))
                                for c, latency in members)
        rows = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape('-' if value is None else str(value))}</dd>"
                       for label, value in zip(labels, key))
        out.append(f"<dl class='provenance'><dt>{'campaign' if len(members) == 1 else 'campaigns'}</dt>"
                   f"<dd>{campaigns}</dd>{rows}</dl>")
    return "".join(out)


def _peaks(store) -> str:
    rows = []
    for c in store.campaigns("peak"):
        kernel = c["params"].get("kernel")
        best = {}
        for r in store.runs(c["name"], status="ok"):
            value = r.get("flops_per_second") if unit(kernel) == "FLOP/s" else r.get("bytes_per_second")
            key = (r["system"], r.get("cores"))
            best[key] = max(best.get(key, 0), value or 0)
        for (system, cores), value in sorted(best.items()):
            rows.append([c["name"], kernel, system, cores, units.rate(value, unit(kernel)), c["machine"].get("hostname")])
    if not rows:
        return "<p class='muted'>No stored peak runs: efficiencies are relative to the best run of each campaign.</p>"
    return html_table(["campaign", "kernel", "system", "cores", "best", "host"], rows)


def _progress(console, what: str, total: int):
    """A progress bar over `total` steps of building the report, on a terminal only: a log gets
    no bar."""
    if total and console is not None and sys.stderr.isatty():
        bar = console.progress(what)
        bar.add(total)
        return bar
    return contextlib.nullcontext()


def _drawing(console, total: int):
    """The progress bar over the figures, on a terminal only: a log gets no bar."""
    if total and sys.stderr.isatty():
        return console.progress("drawing figures")
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


def write_report(store, html_path: str | Path, campaign_names: list[str] | None, console) -> Path:
    html_path = Path(html_path)
    names = list(dict.fromkeys(campaign_names or [c["name"] for c in store.campaigns()]))
    kinds = {n: store.campaign(n)["kind"] for n in names}
    study_results = [results.load(store, n) for n in names if kinds[n] == execute.KIND]
    # A METG study's sweeps are shown under the study, with its figure: not again on their own.
    in_studies = {a.name: a for r in study_results for _, _, a in _sweeps(r)}
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
    figures = Figures(html_path.with_name(html_path.stem + "_figures")) if plots else None

    body: list[str] = []
    contents: list[tuple[str, str]] = []
    if analyses:
        # Without a study, the first screen answers the main question: the METG table and which
        # system is fastest at small tasks.
        contents.append(("metg", "METG campaigns"))
        body.append("<h2 id='metg'>METG: which system is fastest at small tasks?</h2>")
        sections = [_metg_campaign(store, a, html.escape(a.name), a.name, 3, figures, plots, plots_trace)
                    for a in analyses]
        if len(analyses) > 1:
            body.append(_metg_summary(analyses))
            for a, section in zip(analyses[1:], sections[1:]):
                section.folded = f"{a.name} (created {a.campaign.get('created', '?')}): {(answer(a) or ['no METG'])[0]}"
        body += _campaign_group(sections)
    if study_results:
        body.append("<h2 id='studies'>Studies</h2>")
        for result in study_results:
            contents.append((anchor(result.name), f"Study {result.name}"))
            body += _study(store, result, figures, plots, plots_trace)
    if figures is not None:
        across = [(n, draw, "Fig. 10 style: METG vs dependencies per task")
                  for n, draw in plots.metg_vs_dependencies(analyses)]
        across += [(n, draw, "Fig. 9 style: METG vs nodes") for n, draw in plots.metg_vs_nodes(analyses)]
        if across:
            contents.append(("across", "METG across campaigns"))
            body.append("<h2 id='across'>METG across campaigns</h2>")
            body += [figures.add(n, draw, caption) for n, draw, caption in across]
    every = [*in_studies.values(), *analyses]
    body += breakdown_section([r for n in dict.fromkeys([*names, *in_studies]) for r in store.runs(n, status="ok")])
    columns, rows = failures_table(every)
    body.append(f"<h2 id='failures'>Failed runs ({len(rows)})</h2>")
    body.append(html_table(columns, rows) if rows else "<p class='muted'>none</p>")
    body.append("<h2 id='peaks'>Peaks</h2>" + _peaks(store))
    sources = [(r.campaign, r.runs) for r in study_results] + [(a.campaign, a.runs) for a in every]
    body.append("<h2 id='provenance'>Provenance</h2>" + _provenance(sources))
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
            f"<style>{_CSS}</style></head><body>{''.join(_once(head + body, {TIME_SPLIT_HELP}))}</body></html>\n")
    if figures is not None:
        with _drawing(console, len(figures)) as bar:
            if bar is not None:
                bar.add(len(figures))
            page = figures.render(page, bar)
    made = make_parents(html_path, "--html")
    if made and console is not None:
        console.note(f"made the folder {made} for {html_path}")
    html_path.write_text(page, encoding="utf-8")
    return html_path
