"""The studies' figures on fixed records: time relative to the balanced run and to the static
loop, discovery per task from either report key, best of repetitions, the breakdown table."""

import pytest

from taskbench.measure.system_report import breakdown_of, discovery_of
from taskbench.report.tables import breakdown_table
from taskbench.studies.presets import discovery, imbalance
from taskbench.studies.results import StudyResult, fastest


def _run(key, elapsed, flops=1000, status="ok", report=None, **extra):
    return {"key": key, "status": status, "reason": "" if status == "ok" else "boom",
            "elapsed_seconds": elapsed, "flops": flops, "report": report, **extra}


def _result(study, systems, runs, reps=1, **params):
    grid = study.grid(systems, True, reps)
    campaign = {"name": "c", "status": "done", "params": {"study": study.name, "systems": systems, "reps": reps,
                                                          **params}}
    return StudyResult(campaign, grid, runs, params.get("unavailable", {}), params.get("no_breakdown", {}))


def test_relative_time_is_per_unit_of_work():
    balanced = _run("k0", 1.0, flops=1000)
    # 10% slower, with 2% less work drawn: time per work is 1.1/0.98 of the balanced run's.
    assert imbalance.relative_to_balanced(_run("k2", 1.1, flops=980), balanced) == pytest.approx(1.1 / 0.98)
    assert imbalance.relative_to_balanced(_run("k2", 1.1, status="crashed"), balanced) is None
    assert imbalance.relative_to_balanced(_run("k2", 1.1), None) is None
    assert imbalance.relative_to_static(_run("t", 0.8), _run("s", 1.0)) == pytest.approx(0.8)


def test_fastest_repetition_counts_and_failures_show():
    assert fastest([_run("a", 0.5), _run("b", 0.4), _run("c", 0.1, status="timeout")])["key"] == "b"
    assert fastest([_run("c", None, status="timeout")])["status"] == "timeout"
    assert fastest([]) is None


def test_imbalance_table_and_findings():
    systems = ["openmp_for", "openmp_task", "gone"]

    def key(s, p, x, rep):
        return f"{s}/pattern={p}/imbalance={x}/rep={rep}"
    runs = []
    for p in ("stencil_1d", "nearest"):
        runs += [_run(key("openmp_for", p, 0.0, 0), 1.0), _run(key("openmp_for", p, 2.0, 0), 1.2),
                 _run(key("openmp_task", p, 0.0, 0), 1.0), _run(key("openmp_task", p, 2.0, 0), 1.5),
                 _run(key("openmp_task", p, 2.0, 1), 1.02)]  # the faster repetition counts
    runs[4]["status"] = "crashed"  # stencil_1d's fast repetition failed: the slow one counts
    result = _result(imbalance.STUDY, systems, runs, reps=2, unavailable={"gone": "binary missing"})
    columns, rows = imbalance.table(result)
    assert columns == ["pattern", "system", "balanced time", "x2 vs balanced", "vs openmp_for at 2"]
    assert rows[0] == ["stencil_1d", "openmp_for", "1.00 s", "1.200", "1.000"]
    assert rows[1] == ["stencil_1d", "openmp_task", "1.00 s", "1.500", "1.250"]
    assert rows[2] == ["stencil_1d", "gone", "not available: binary missing", "", ""]
    assert rows[4][:2] == ["nearest radix 5", "openmp_task"] and rows[4][3:] == ["1.020", "0.850"]
    lines = imbalance.findings(result)
    assert lines == ["stencil_1d, imbalance 2: openmp_task takes 1.25x the time of openmp_for (static), "
                     "25% more; the paper: tasks take 0.70-0.85x",
                     "nearest radix 5, imbalance 2: openmp_task takes 0.85x the time of openmp_for (static), "
                     "15% less; the paper: tasks take 0.70-0.85x"]


def test_failed_balanced_run_explains_every_cell():
    runs = [_run("openmp_for/pattern=stencil_1d/imbalance=0.0/rep=0", None, status="crashed"),
            _run("openmp_for/pattern=stencil_1d/imbalance=2.0/rep=0", 1.0)]
    _, rows = imbalance.table(_result(imbalance.STUDY, ["openmp_for"], runs))
    assert rows[0] == ["stencil_1d", "openmp_for", "crashed: boom", "crashed: boom", "1.000"]
    assert rows[1][2:] == ["not run yet", "not run yet", "—"]


def _report(**system_report):
    return {"system_report": system_report}


BREAKDOWN = {"seconds": {"elapsed": 0.5, "work": 0.8, "overhead": 0.1, "idle": 0.05, "discovery": 0.002},
             "ns_per_task": {"work": 8000, "overhead": 1000, "idle": 500, "discovery": 20}, "tasks": 100,
             "threads": []}


def test_discovery_from_either_report_key():
    own = discovery_of({"report": _report(discovery={"seconds": 0.004, "tasks": 100})})
    assert (own.ns_per_task, own.source) == (pytest.approx(40000), "discovery")
    from_breakdown = discovery_of({"report": _report(breakdown=BREAKDOWN)})
    assert (from_breakdown.ns_per_task, from_breakdown.source) == (pytest.approx(20000), "breakdown")
    assert discovery_of({"report": _report()}) is None and discovery_of({"report": None}) is None
    assert breakdown_of({"report": _report(breakdown=BREAKDOWN)}) == {
        "work": 8000, "overhead": 1000, "idle": 500, "discovery": 20, "tasks": 100}
    assert breakdown_of({"report": _report(breakdown={"ns_per_task": {"work": 1}})}) is None


def test_discovery_table_per_task_and_against_the_persistent_graph():
    def run(system, it, seconds, report):
        return _run(f"{system}/iter={it}/rep=0", 0.01, granularity_seconds=2e-6, report=report)
    runs = [run("native", 64, 0.01, _report(breakdown=BREAKDOWN)),
            run("openmp_task", 64, 0.01, _report(discovery={"seconds": 0.004, "tasks": 100})),
            run("openmp_task_llvm", 64, 0.01, _report())]
    result = _result(discovery.STUDY, ["openmp_task", "openmp_task_llvm", "native"], runs,
                     no_breakdown={"openmp_task_llvm": "tool missing"})
    per = discovery.per_task(runs[1])
    assert per["discovery_ns"] == pytest.approx(40000) and per["share"] == pytest.approx(0.4)
    _, rows = discovery.table(result)
    assert rows[0] == [64, "openmp_task", "2.00 µs", "40.0 µs", "40%", "2.0x", "—", ""]
    assert rows[1] == [64, "openmp_task_llvm", "2.00 µs", "no discovery figure in the report", "", "", "—",
                       "tool missing"]
    assert rows[2] == [64, "native", "2.00 µs", "20.0 µs", "20%", "1.0x", "8000/1000/500 ns", ""]
    assert rows[3][1] == "openmp_task" and rows[3][3] == "not run yet"  # -iter 1024 has no runs
    lines = discovery.findings(result)
    assert lines[:2] == ["-iter 64: openmp_task spends 2.0x the discovery time per task of native "
                         "(persistent graph; the paper: up to 15x)",
                         "-iter 64: openmp_task_llvm: no discovery figure in the report"]


def test_breakdown_table_keeps_the_fastest_run_and_pairs_systems_by_graph():
    def run(system, it, elapsed):
        return {"campaign": "c", "system": system, "pattern": "stencil_1d", "steps": 10, "width": 2,
                "iter": it, "elapsed_seconds": elapsed, "report": _report(breakdown=BREAKDOWN)}
    runs = [run("openmp_task_llvm", 64, 0.2), run("native", 64, 0.3), run("native", 64, 0.1),
            run("native", 16, 0.1), {"campaign": "c", "system": "serial", "report": {}}]
    columns, rows = breakdown_table(runs)
    assert columns[-4:] == ["work ns/task", "overhead ns/task", "idle ns/task", "discovery ns/task"]
    assert [(r[1], r[3]) for r in rows] == [(16, "native"), (64, "native"), (64, "openmp_task_llvm")]
    assert rows[1] == ["stencil_1d, 10 x 2", 64, "c", "native", 100, "8000.0", "1000.0", "500.0", "20.0"]
