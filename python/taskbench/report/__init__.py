"""The report: figures as PNG and SVG files, and one self-contained HTML page (figures inlined as
base64 PNG) with the METG tables, the failures and the machine's provenance."""

from __future__ import annotations

import html
from pathlib import Path

from taskbench import units
from taskbench.measure.analysis import analyze
from taskbench.measure.kernels import unit
from taskbench.report.page import Figures, html_table
from taskbench.report.study_sections import breakdown_section, study_sections
from taskbench.report.tables import campaign_title, failures_table, metg_table
from taskbench.report.trace_sections import trace_section
from taskbench.studies import execute, results

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 84em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
figure { display: inline-block; margin: 0.4em; vertical-align: top; }
.row { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: flex-start; }
.row figure { max-width: 49%; margin: 0; }
img { max-width: 100%; }
.warn { color: #a15c00; }
.unreliable { color: #b00020; font-weight: bold; }
.muted { color: #777; font-size: 0.85em; }
"""


def _provenance(store, analyses) -> str:
    rows = []
    for a in analyses:
        c = a.campaign
        m = c["machine"]
        ok = next((r for r in a.runs if r["status"] == "ok" and r.get("report")), None)
        tb = (ok or {}).get("report", {}).get("taskbench", {}) if ok else {}
        latency = m.get("core_to_core_one_way_ns") or []
        rows.append([a.name, c["created"], m.get("hostname"), m.get("cpu_model"), m.get("available_cpus"),
                     f"{(m.get('memory_bytes') or 0) / 2**30:.1f} GiB", m.get("os"),
                     " / ".join(f"{x:.0f} ns" for x in latency if x is not None) or "-",
                     (ok or {}).get("compiler"), tb.get("build_flags"), tb.get("blas"),
                     c.get("git_revision")])
    return html_table(["campaign", "created", "host", "CPU", "cores", "memory", "OS",
                   "core-to-core (start / end)", "compiler", "build flags", "BLAS", "git revision"],
                  rows)


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


def _metg_campaign(store, a, figures, plots, plots_trace) -> list[str]:
    parts = [f"<h3>{html.escape(campaign_title(a))}</h3>", html_table(*metg_table(a))]
    if plots:
        parts.append("<div class='row'>"
                     + figures.add(f"{a.name}_metg", plots.metg_bars(a),
                                   f"METG per system, smallest first ({a.name})")
                     + figures.add(f"{a.name}_fig7_efficiency", plots.efficiency_vs_granularity(a),
                                   f"Fig. 7 style: efficiency vs task granularity ({a.name})")
                     + "</div>")
    for curve in a.curves.values():
        if curve.summary.unreliable:
            parts.append(f"<p class='unreliable'>{html.escape(curve.system)}: METG UNRELIABLE, not a result: "
                         f"{html.escape('; '.join(curve.summary.unreliable))}</p>")
        for w in curve.summary.warnings:
            if w not in curve.summary.unreliable:
                parts.append(f"<p class='warn'>{html.escape(curve.system)}: {html.escape(w)}</p>")
        if curve.noisy_points:
            sizes = ", ".join(f"-iter {it} ({s:.0%})" for it, s in curve.noisy_points)
            parts.append(f"<p class='warn'>{html.escape(curve.system)}: repetitions disagree by more "
                         f"than 25% at {html.escape(sizes)}</p>")
    if plots:
        parts.append(figures.add(f"{a.name}_fig6_throughput", plots.throughput_vs_size(a),
                                 f"Fig. 6 style: {unit(a.params.kernel)} vs problem size ({a.name})"))
    parts += trace_section(store, a, figures if plots else None, plots_trace if plots else None)
    return parts


def write_report(store, html_path: str | Path, campaign_names: list[str] | None, console) -> Path:
    html_path = Path(html_path)
    names = campaign_names or [c["name"] for c in store.campaigns()]
    kinds = {n: store.campaign(n)["kind"] for n in names}
    analyses = [analyze(store, n) for n in names if kinds[n] == "metg"]
    study_results = [results.load(store, n) for n in names if kinds[n] == execute.KIND]
    try:
        from taskbench import plots
        from taskbench.plots import trace as plots_trace
    except ImportError:
        plots = plots_trace = None
        console.warn("matplotlib is not installed: the report has tables but no figures")
    figures = Figures(html_path.with_name(html_path.stem + "_figures"))
    parts = [f"<h1>taskbench report</h1><p class='muted'>{len(analyses)} METG campaign(s), "
             f"{len(study_results)} study campaign(s) from {html.escape(str(store.path))}</p>"]
    # The first screen answers the main question: the METG table and which system is fastest
    # at small tasks; everything else comes below.
    parts.append("<h2>METG: which system is fastest at small tasks?</h2>")
    for a in analyses:
        parts += _metg_campaign(store, a, figures, plots, plots_trace)
    if plots:
        extra = [(n, f, "Fig. 10 style: METG vs dependencies per task") for n, f in plots.metg_vs_dependencies(analyses)]
        extra += [(n, f, "Fig. 9 style: METG vs nodes") for n, f in plots.metg_vs_nodes(analyses)]
        if extra:
            parts.append("<h2>METG across campaigns</h2>")
            parts += [figures.add(n, f, caption) for n, f, caption in extra]
    parts += study_sections(study_results, figures if plots else None)
    parts += breakdown_section([r for n in names for r in store.runs(n, status="ok")])
    columns, rows = failures_table(analyses)
    parts.append(f"<h2>Failed runs ({len(rows)})</h2>")
    parts.append(html_table(columns, rows) if rows else "<p class='muted'>none</p>")
    parts.append("<h2>Peaks</h2>" + _peaks(store))
    parts.append("<h2>Provenance</h2>" + _provenance(store, [*analyses, *study_results]))
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>taskbench report</title>"
            f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>\n")
    html_path.parent.mkdir(parents=True, exist_ok=True)
    html_path.write_text(page, encoding="utf-8")
    return html_path
