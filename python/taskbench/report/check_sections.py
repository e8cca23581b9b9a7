"""The report's section on `taskbench check` runs: each check's settings and verdicts, apart from
the METG campaigns. A check's pilot sweeps (stored as METG campaigns named CHECK-pilotR-N: where
to put the grid of sizes both sides run) are part of it, never listed or ranked as METG
campaigns."""

from __future__ import annotations

import html

from taskbench import units
from taskbench.report.page import html_table


def pilots_of(campaigns: list[dict]) -> dict[str, list[str]]:
    """{check campaign: the names of its pilot sweeps}."""
    checks = [c["name"] for c in campaigns if c["kind"] == "check"]
    found: dict[str, list[str]] = {name: [] for name in checks}
    for c in campaigns:
        parent = next((name for name in checks if c["name"].startswith(name + "-pilot")), None)
        if parent is not None and c["kind"] == "metg":
            found[parent].append(c["name"])
    return found


def check_section(store, checks: list[dict], pilots: dict[str, list[str]]) -> list[str]:
    parts = ["<h2 id='checks'>Regression checks (<code>taskbench check</code>)</h2>",
             "<p class='muted'>Each check: the candidate against its baseline, interleaved; ratio = candidate / "
             "baseline, smaller is better (docs/regression-gate.md). Its pilot sweeps only placed the sizes both "
             "sides ran: they are no METG campaigns.</p>"]
    for c in checks:
        pairs = ", ".join(f"{cand} vs {base}" if base else cand for cand, base in c["params"].get("pairs", []))
        parts.append(f"<h3>{html.escape(c['name'])}</h3>")
        parts.append(_params(c, pairs))
        status = store.status(c)
        if status != "done":
            parts.append(f"<p class='warn'>{html.escape(status)}: no verdict stored</p>")
        results = c.get("results") or {}
        if results.get("verdicts"):
            parts.append(html_table(results["columns"], results["verdicts"], "cards"))
        elif status == "done":
            parts.append("<p class='muted'>its verdicts were not stored (a check made before they were): "
                         "`taskbench check` printed them</p>")
        if pilots.get(c["name"]):
            parts.append(f"<p class='muted'>{units.count(len(pilots[c['name']]), 'pilot sweep')}: "
                         f"{html.escape(', '.join(pilots[c['name']]))}</p>")
    return parts


def _params(c: dict, pairs: str) -> str:
    p = c["params"]
    threshold = (c.get("results") or {}).get("threshold")
    limit = f", threshold {threshold:.0%}" if threshold is not None else ""
    text = (f"{pairs}; {p.get('pattern')}, {p.get('width')} wide, {p.get('preset')} preset"
            f"{', METG too' if p.get('metg') else ', fixed grains only'}{limit}; created {c.get('created')}")
    return f"<p class='params'>{html.escape(text)}</p>"
