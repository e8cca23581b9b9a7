"""What `taskbench check` writes besides its table: Markdown for a CI job's summary
($GITHUB_STEP_SUMMARY, a GitLab job summary), and JSON that benchmark trackers load:
github-action-benchmark's `customSmallerIsBetter` (a list of {name, unit, value, range, extra})
and Bencher's Metric Format ({benchmark: {measure: {value, lower_value, upper_value}}}).
A cell is check/verdicts.Cell: system, baseline, metric, both sides' values, comparison, verdict."""

from __future__ import annotations

import statistics

from taskbench import units

JSON_FORMATS = ("github-action-benchmark", "bencher")
COLUMNS = ["system", "metric", "baseline", "candidate", "ratio (95% interval)", "verdict", "why"]
# Bencher's built-in Latency measure (slug "latency") is in nanoseconds; the trackers get the
# same unit, so that a plot of either reads alike.
BENCHER_MEASURE = "latency"
NS = 1e9


def _median(values) -> float | None:
    return statistics.median(values) if values else None


def _seconds(values) -> str:
    m = _median(values)
    return f"{units.seconds(m)} ({len(values)})" if m is not None else "—"


def _ratio(c) -> str:
    comparison = c.comparison
    if comparison is None or comparison.ratio is None:
        return "—"
    if comparison.low is None:
        return f"{comparison.ratio:.3f}x"
    return f"{comparison.ratio:.3f}x ({comparison.low:.3f}-{comparison.high:.3f})"


def rows(cells) -> list[list[str]]:
    """The table: medians with their repetition counts, the ratio with its interval, the verdict."""
    return [[c.system, c.metric, _seconds(c.baseline_values), _seconds(c.candidate_values), _ratio(c), c.verdict,
             c.why] for c in cells]


def markdown(cells, threshold: float, pattern: str, width: int) -> str:
    marks = {"regressed": "❌ regressed", "improved": "✅ improved", "unchanged": "unchanged",
             "inconclusive": "⚠️ inconclusive"}
    lines = [f"### taskbench check: {pattern}, {width} wide, threshold {threshold:.0%}", "",
             "Ratio: candidate / baseline, smaller is better; medians with their repetitions in brackets.", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row, c in zip(rows(cells), cells):
        row[5] = marks.get(c.verdict, c.verdict)
        lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in row) + " |")
    return "\n".join(lines) + "\n"


def json_document(cells, form: str):
    """The candidate's figures (the median of each metric's repetitions, in ns, with their range)
    in a tracker's format."""
    measured = [c for c in cells if c.candidate_values]
    if form == "bencher":
        return {f"{c.system}: {c.metric}": {BENCHER_MEASURE: {
            "value": _median(c.candidate_values) * NS, "lower_value": min(c.candidate_values) * NS,
            "upper_value": max(c.candidate_values) * NS}} for c in measured}
    out = []
    for c in measured:
        half = (max(c.candidate_values) - min(c.candidate_values)) / 2 * NS
        extra = f"{len(c.candidate_values)} repetitions" + (f"; {c.verdict}: {c.why}" if c.verdict else "")
        out.append({"name": f"{c.system}: {c.metric}", "unit": "ns",
                    "value": round(_median(c.candidate_values) * NS, 3), "range": f"± {half:.4g}", "extra": extra})
    return out
