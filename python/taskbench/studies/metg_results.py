"""A METG study's result: its sweeps' analyses, METG per system per parameter value, the table."""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import units
from taskbench.measure.analysis import CampaignAnalysis, analyze
from taskbench.measure.metg.methods import UNRELIABLE_MARK, refusal


@dataclass
class MetgCell:
    """What one (system, value) shows: a METG in seconds, or why there is none."""
    seconds: float | None
    low: float | None = None
    high: float | None = None
    why_not: str = ""
    unreliable: str = ""  # why the figure is noise rather than a result (measure/metg/reliability.py); "" if it is one
    bound: bool = False  # still efficient at the smallest size swept: an upper bound

    @property
    def text(self) -> str:
        """"352 ns (341-366)": the METG with its 95% interval, " or less" where it is a bound
        (units.metg, the formatter of every command)."""
        return units.metg(self.seconds, self.low, self.high, bound=self.bound)

    @property
    def mark(self) -> str:
        return UNRELIABLE_MARK if self.unreliable else ""

    def refusal(self, system: str, where: str, conclusion: str) -> str:
        return refusal(system, where, conclusion, self.unreliable)


@dataclass
class MetgStudyResult:
    campaign: dict
    analyses: dict[str, list[CampaignAnalysis]]  # sweep label -> its campaigns (light, heavy)
    allow_unreliable: bool = False  # findings drawn from unreliable METGs too (study --allow-unreliable)

    @property
    def name(self) -> str:
        return self.campaign["name"]

    @property
    def params(self) -> dict:
        return self.campaign["params"]

    @property
    def systems(self) -> list[str]:
        return list(self.params["systems"])

    @property
    def unavailable(self) -> dict[str, str]:
        return dict(self.params.get("unavailable") or {})

    @property
    def runs(self) -> list[dict]:
        return [r for group in self.analyses.values() for a in group for r in a.runs]

    def values(self) -> list[tuple[object, str]]:
        """(value, label) of every sweep, in the preset's axis order."""
        return list(dict.fromkeys((s["value"], s["label"]) for s in self.params["sweeps"]))

    def cell(self, system: str, label: str) -> MetgCell:
        if system in self.unavailable:
            return MetgCell(None, why_not=f"not available: {self.unavailable[system]}")
        for analysis in self.analyses.get(label, []):
            curve = analysis.curves.get(system)
            if curve is None:
                continue
            summary = curve.summary
            unreliable = "; ".join(summary.unreliable)
            if summary.seconds is not None:
                return MetgCell(summary.seconds, summary.low, summary.high, unreliable=unreliable,
                                bound=summary.bound)
            if not any(r["system"] == system for r in analysis.runs):
                return MetgCell(None, why_not="not run yet")
            best = max((p.efficiency for pts in curve.reps.values() for p in pts if p.ok), default=None)
            if best is None:
                reasons = sorted({f"{r['status']}: {r.get('reason') or ''}"[:80] for r in curve.failures})
                return MetgCell(None, why_not=reasons[0] if reasons else "no successful run")
            return MetgCell(None, why_not=f"no METG (best {best:.0%})", unreliable=unreliable)
        return MetgCell(None, why_not="not run yet")


def load(store, name: str) -> MetgStudyResult:
    campaign = store.campaign(name)
    stored = {c["name"] for c in store.campaigns("metg")}
    analyses: dict[str, list[CampaignAnalysis]] = {}
    for sweep in campaign["params"]["sweeps"]:
        group = analyses.setdefault(sweep["label"], [])
        if sweep["campaign"] in stored:
            group.append(analyze(store, sweep["campaign"]))
    return MetgStudyResult(campaign, analyses)


def child_campaigns(campaign: dict) -> list[str]:
    return [s["campaign"] for s in campaign["params"].get("sweeps", [])]


def table(result: MetgStudyResult, parameter: str,
          figures: units.Figures = units.READABLE) -> tuple[list[str], list[list]]:
    """METG per system (rows) per value of the parameter (columns); raw figures: seconds, and an
    unreliable one still marked."""
    values = result.values()
    columns = ["system"] + [f"{parameter} {value}" for value, _ in values]
    rows = []
    for system in result.systems:
        cells = [result.cell(system, label) for _, label in values]
        if system in result.unavailable:
            rows.append([system, cells[0].why_not] + [""] * (len(values) - 1))
            continue
        rows.append([system] + [f"{figures.seconds(c.seconds) if figures.raw else c.text}{c.mark}"
                                if c.seconds is not None else c.why_not + c.mark for c in cells])
    return columns, rows


def series(result: MetgStudyResult, system: str) -> list[tuple[object, MetgCell]]:
    """(value, cell) of the values where the system has a METG: one line of the figure."""
    cells = [(value, result.cell(system, label)) for value, label in result.values()]
    return [(value, c) for value, c in cells if c.seconds is not None]


def ratio_findings(result: MetgStudyResult, parameter: str) -> list[str]:
    """Per system, how much its METG grows from the first value to the last (both measured and
    reliable, or with result.allow_unreliable marked so; else the line says why not)."""
    values = result.values()
    if len(values) < 2:
        return []
    (first, first_label), (last, last_label) = values[0], values[-1]
    lines = []
    for system in result.systems:
        a, b = result.cell(system, first_label), result.cell(system, last_label)
        if not (a.seconds and b.seconds):
            continue
        unsure = [(c, f"at {parameter} {v}") for c, v in ((a, first), (b, last)) if c.unreliable]
        if unsure and not result.allow_unreliable:
            lines += [c.refusal(system, where, "ratio") for c, where in unsure]
            continue
        which = units.ratio_bound(b.bound, a.bound)
        grows = "both upper bounds: no ratio" if which is None else f"{which}{b.seconds / a.seconds:.3g}x"
        lines.append(f"{system}: METG {a.text}{a.mark} at {parameter} {first}, "
                     f"{b.text}{b.mark} at {last} ({grows})")
    return lines
