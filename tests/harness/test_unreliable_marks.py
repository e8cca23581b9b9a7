"""A METG its campaign marked unreliable is marked wherever it is shown (tables, campaigns, figures)
and no conclusion is drawn from it (compare's ratio, a prediction, a study's findings) unless
--allow-unreliable: synthetic campaigns, no executables."""

from types import SimpleNamespace

import pytest

from taskbench import plots
from taskbench.errors import EXIT_UNRELIABLE, UserError
from taskbench.measure import compare, predict_metg
from taskbench.measure.metg.methods import MetgSummary, MetgValue
from taskbench.studies.metg_results import MetgCell, ratio_findings

DISAGREE = "its 95% interval 3 µs (2.1–4.3) is ±37%, wider than ±10%"


def curve(name, metg, unreliable=(), low=0.9, high=1.2):
    summary = MetgSummary([MetgValue(metg, "found")] * 3, seconds=metg, low=metg * low, high=metg * high,
                          status="found", found=3, unreliable=list(unreliable), warnings=list(unreliable))
    return SimpleNamespace(system=name, summary=summary)


def campaign(name, **curves):
    params = SimpleNamespace(pattern="stencil_1d", kernel="compute_bound", threshold=0.5, reps=3)
    return SimpleNamespace(name=name, params=params, curves=curves)


A = campaign("a", native=curve("native", 1e-6), openmp_for=curve("openmp_for", 2e-6))
B = campaign("b", native=curve("native", 3e-6, [DISAGREE]), openmp_for=curve("openmp_for", 4e-6))


def test_compare_draws_no_ratio_from_an_unreliable_metg_and_says_which_and_why():
    rows, refusals = compare.compare_rows(A, B)
    by_system = {row[0]: row for row in rows}
    assert by_system["native"][4] == "3.00 µs (2.70–3.60) (unreliable)" and by_system["native"][5] == "unreliable"
    # B/A with the range its two intervals allow (4 x 0.9 / 2 x 1.2 to 4 x 1.2 / 2 x 0.9): apart.
    assert by_system["openmp_for"][5:] == ["2.00x (1.50–2.67)", "differ"]
    assert refusals == [f"native: no B/A ratio: its METG in B (b) is unreliable ({DISAGREE}); "
                        "--allow-unreliable draws it anyway"]
    rows, refusals = compare.compare_rows(A, B, allow_unreliable=True)
    assert {row[0]: row[5] for row in rows}["native"] == "3.00x (2.25–4.00) (unreliable)" and refusals == []


def test_compare_says_differ_only_where_the_intervals_do_not_overlap():
    a = campaign("a", native=curve("native", 1.00e-6, low=0.95, high=1.05))
    near = campaign("b", native=curve("native", 1.04e-6, low=0.95, high=1.05))
    far = campaign("c", native=curve("native", 1.20e-6, low=0.95, high=1.05))
    assert compare.compare_rows(a, near)[0][0][5:] == ["1.04x (0.94–1.15)", "not told apart"]
    assert compare.compare_rows(a, far)[0][0][5:] == ["1.20x (1.09–1.33)", "differ"]
    single = campaign("d", native=SimpleNamespace(system="native", summary=MetgSummary(
        [MetgValue(2e-6, "found")], seconds=2e-6, status="found", found=1)))
    assert compare.compare_rows(a, single)[0][0][5:] == ["2.00x", "— (no interval)"]


def test_an_interval_the_data_leave_open_leaves_the_ratio_open_not_a_division_by_zero():
    """A bootstrap interval whose resamples found no crossing is (0, infinity): B/A's range is
    then unbounded above, never told apart (a ZeroDivisionError before this test)."""
    open_a = campaign("a", native=curve("native", 1e-6, low=0.0, high=float("inf")))
    b = campaign("b", native=curve("native", 2e-6))
    assert compare.compare_rows(open_a, b)[0][0][5:] == ["2.00x (0.00–unbounded)", "not told apart"]
    assert compare.compare_rows(b, open_a)[0][0][5:] == ["0.50x (0.00–unbounded)", "not told apart"]
    assert compare.compare_rows(open_a, b, raw=True)[0][0][5:8] == [2.0, 0.0, float("inf")]


def test_predict_refuses_an_unreliable_stored_metg(monkeypatch):
    store = SimpleNamespace(campaigns=lambda kind: [{"name": "b", "params": {"systems": ["native"]}}])
    ctx = SimpleNamespace(store=store, read_only=False,
                          console=SimpleNamespace(note=lambda *_: None, warn=lambda *_: None))
    analysis = SimpleNamespace(curves=B.curves, params=B.params, nodes=1)
    monkeypatch.setattr(predict_metg, "analyze", lambda _store, _name: analysis)
    with pytest.raises(UserError) as refused:
        predict_metg.stored_metg(ctx, "native", None, allow_unreliable=False)
    assert refused.value.exit_code == EXIT_UNRELIABLE
    assert str(refused.value) == (f"native: no prediction: its METG in campaign 'b' is unreliable ({DISAGREE}); "
                                  "--allow-unreliable draws it anyway")
    assert predict_metg.stored_metg(ctx, "native", None, allow_unreliable=True) == 3e-6
    assert predict_metg.stored_metg(ctx, "openmp_for", "b", allow_unreliable=False) == 4e-6


class Study:
    """A METG study of two values with what metg_results.ratio_findings reads."""

    def __init__(self, cells, allow_unreliable=False):
        self.cells, self.allow_unreliable, self.systems = cells, allow_unreliable, list(cells)

    def values(self):
        return [(64, "w64"), (1024, "w1024")]

    def cell(self, system, label):
        return self.cells[system][label]


def test_a_study_finding_is_not_drawn_from_an_unreliable_metg():
    cells = {"native": {"w64": MetgCell(1e-6), "w1024": MetgCell(4e-6, unreliable=DISAGREE)},
             "openmp_for": {"w64": MetgCell(2e-6), "w1024": MetgCell(3e-6)}}
    assert ratio_findings(Study(cells), "bytes") == [
        f"native: no ratio: its METG at bytes 1024 is unreliable ({DISAGREE}); --allow-unreliable draws it anyway",
        "openmp_for: METG 2.00 µs at bytes 64, 3.00 µs at 1024 (1.5x)"]
    assert ratio_findings(Study(cells, allow_unreliable=True), "bytes")[0] == (
        "native: METG 1.00 µs at bytes 64, 4.00 µs (unreliable) at 1024 (4x)")


def test_the_metg_bars_mark_an_unreliable_metg():
    figure = plots.metg_bars(SimpleNamespace(params=B.params, curves=B.curves))
    ax = figure.axes[0]
    hatched = [bar for bar in ax.patches if bar.get_hatch()]
    assert len(ax.patches) == 2 and len(hatched) == 1
    labels = [t.get_text() for t in ax.texts]
    assert "3.00 µs (2.70–3.60) (unreliable)" in labels and "4.00 µs (3.60–4.80)" in labels


def test_compare_says_when_a_campaign_ran_busy_or_the_cpus_were_placed_apart():
    a = SimpleNamespace(name="a", busy=None, campaign={"machine": {"core_to_core_one_way_ns": [56.0, 61.0]}})
    b = SimpleNamespace(name="b", busy=1.07, campaign={"machine": {"core_to_core_one_way_ns": [399.0, 402.0]}})
    lines = compare.context_lines(a, b)
    assert lines[0].startswith("b: BUSY MACHINE: other processes used 1.07 cores on average")
    assert lines[1].startswith("the campaigns ran on differently placed CPUs: a cache line took 56 ns one way in A "
                               "and 399 ns in B, more than 2x apart")
    near = SimpleNamespace(name="c", busy=None, campaign={"machine": {"core_to_core_one_way_ns": [90.0, 100.0]}})
    assert compare.context_lines(a, near) == []
