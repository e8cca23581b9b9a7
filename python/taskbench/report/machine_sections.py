"""The report's closing sections about the machine: the stored peaks, and the provenance of each
campaign (host, CPU, cores, memory, OS, compiler, build flags, git revision), one list per
machine and build."""

from __future__ import annotations

import html

from taskbench import units
from taskbench.measure.kernels import throughput, unit
from taskbench.report.page import html_table


def _latency(machine: dict) -> str:
    """"127-216 ns one way over 48 probes" (measure/placement.py), or a campaign's start and end
    probes where it has only those (an earlier harness's)."""
    probes = [p["one_way_ns"] for p in machine.get("placement_probes") or []]
    if probes:
        return f"{min(probes):.0f}-{max(probes):.0f} ns one way over {units.count(len(probes), 'probe')}"
    ends = [x for x in machine.get("core_to_core_one_way_ns") or [] if x is not None]
    return " / ".join(f"{x:.0f} ns" for x in ends) + " (start / end)" if ends else ""


def provenance_section(sources) -> str:
    """One definition list per machine and build: the campaigns that share them are listed together.
    `sources` holds (campaign, its runs)."""
    groups: dict[tuple, list[tuple[dict, str]]] = {}
    for c, runs in sources:
        m = c["machine"]
        ok = next((r for r in runs if r["status"] == "ok" and r.get("report")), None) or {}
        tb = ok.get("report", {}).get("taskbench", {}) if ok else {}
        latency = _latency(m)
        key = (m.get("hostname"), m.get("cpu_model"), m.get("available_cpus"),
               f"{(m.get('memory_bytes') or 0) / 2**30:.1f} GiB", m.get("os"), ok.get("compiler"),
               tb.get("build_flags"), tb.get("blas"), c.get("git_revision"))
        groups.setdefault(key, []).append((c, latency))
    labels = ("host", "CPU", "cores", "memory", "OS", "compiler", "build flags", "BLAS", "git revision")
    out = []
    for key, members in groups.items():
        # Measured per campaign: the core-to-core latency goes with each campaign.
        campaigns = "<br>".join(html.escape(f"{c['name']}: created {c['created']}"
                                            + (f", core-to-core {latency}" if latency else ""))
                                for c, latency in members)
        rows = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape('-' if value is None else str(value))}</dd>"
                       for label, value in zip(labels, key))
        out.append(f"<dl class='provenance'><dt>{'campaign' if len(members) == 1 else 'campaigns'}</dt>"
                   f"<dd>{campaigns}</dd>{rows}</dl>")
    return "".join(out)


def peaks_section(store) -> str:
    rows = []
    for c in store.campaigns("peak"):
        kernel = c["params"].get("kernel")
        best = {}
        for r in store.runs(c["name"], status="ok"):
            key = (r["system"], r.get("cores"))
            best[key] = max(best.get(key, 0), throughput(r, kernel) or 0)
        for (system, cores), value in sorted(best.items()):
            rows.append([c["name"], kernel, system, cores, units.rate(value, unit(kernel)),
                         c["machine"].get("hostname")])
    if not rows:
        return "<p class='muted'>No stored peak runs: efficiencies are relative to the best run of each campaign.</p>"
    return html_table(["campaign", "kernel", "system", "cores", "best", "host"], rows)
