"""check/outputs.py: the Markdown a CI summary shows and the JSON github-action-benchmark
(customSmallerIsBetter) and Bencher (Bencher Metric Format) load, checked against their
documented shapes."""
from __future__ import annotations

import json

from taskbench.check import regression as R
from taskbench.check.verdicts import Cell
from taskbench.check import outputs as check_outputs


def cells():
    base, cand = [1e-6 + k * 1e-9 for k in range(12)], [1.2e-6 + k * 1e-9 for k in range(12)]
    regressed = Cell("native", "native@baseline", "METG(50%)", base, cand)
    regressed.comparison = R.compare(base, cand)
    regressed.verdict, regressed.why = R.verdict(regressed.comparison, regressed.comparison.p, 0.05)
    lonely = Cell("openmp_task", "", "per-task time, empty kernel", [], [3e-7, 4e-7, 5e-7])
    return [regressed, lonely]


def test_github_action_benchmark_custom_smaller_is_better():
    document = json.loads(json.dumps(check_outputs.json_document(cells(), "github-action-benchmark")))
    assert isinstance(document, list) and len(document) == 2
    for entry in document:
        assert set(entry) <= {"name", "unit", "value", "range", "extra"} and {"name", "unit", "value"} <= set(entry)
        assert isinstance(entry["name"], str) and isinstance(entry["unit"], str)
        assert isinstance(entry["value"], (int, float)) and isinstance(entry["range"], str)
    assert document[0]["name"] == "native: METG(50%)" and document[0]["unit"] == "ns"
    assert document[0]["value"] == 1205.5 and document[0]["range"] == "± 5.5"
    assert document[0]["extra"].startswith("12 repetitions; regressed: 1.199x, p ")
    assert document[1] == {"name": "openmp_task: per-task time, empty kernel", "unit": "ns", "value": 400.0,
                           "range": "± 100", "extra": "3 repetitions"}


def test_bencher_metric_format():
    document = json.loads(json.dumps(check_outputs.json_document(cells(), "bencher")))
    assert set(document) == {"native: METG(50%)", "openmp_task: per-task time, empty kernel"}
    for measures in document.values():
        (measure,) = measures.items()
        assert measure[0] == "latency"  # Bencher's built-in measure, in nanoseconds
        assert set(measure[1]) == {"value", "lower_value", "upper_value"}
        assert measure[1]["lower_value"] <= measure[1]["value"] <= measure[1]["upper_value"]
    assert document["openmp_task: per-task time, empty kernel"]["latency"]["value"] == 400.0


def test_markdown_is_a_table_with_the_verdicts_marked():
    text = check_outputs.markdown(cells()[:1], 0.05, "stencil_1d", 2)
    lines = text.splitlines()
    assert lines[0] == "### taskbench check: stencil_1d, 2 wide, threshold 5%"
    header = [c.strip() for c in lines[4].strip("|").split("|")]
    assert header == check_outputs.COLUMNS and lines[5] == "|" + "---|" * len(header)
    row = [c.strip() for c in lines[6].strip("|").split("|")]
    assert row[0] == "native" and row[5] == "❌ regressed" and row[4].startswith("1.199x (")
