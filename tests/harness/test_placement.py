"""The placement probes a campaign takes between its runs (measure/placement.py): read from the
probe's output or said why not, grouped into placements, each run tagged with the probes around
it, and the floor as the lowest of them, measured again where a METG beats it."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from taskbench.measure.sweep import campaign
from taskbench.measure import placement
from taskbench.registry.locations import Layout
from taskbench.store import Store

OUTPUT = """# best of 2 x 2000 rows
one-way cache line        14.9 ns  (CPUs 0 and 1)
exchange per row          30.0 ns  (a flag per column, one wait per dependence)
no-runtime row           130.0 ns  (the core's execute_point, inputs validated)
METG(50%) lower bound     0.260 us  (2 x no-runtime row x workers / width)
"""


def layout_with_probe(tmp_path: Path, script: str | None) -> Layout:
    (tmp_path / "bin").mkdir(parents=True)
    if script is not None:
        (tmp_path / "bench").mkdir()
        probe = tmp_path / "bench" / placement.PROBE
        probe.write_text("#!/bin/sh\n" + script)
        probe.chmod(0o755)
    return Layout(bin_dir=tmp_path / "bin", systems_dir=None)


def test_reads_every_figure_of_the_probe(tmp_path, monkeypatch):
    monkeypatch.setattr(placement, "available_cores", lambda: 2)
    lay = layout_with_probe(tmp_path, f"cat <<'EOF'\n{OUTPUT}EOF\n")
    found, why = placement.probe(lay, ["-type", "stencil_1d"], 2)
    assert why == "" and found == {"workers": 2, "width": 2, "one_way_ns": 14.9, "exchange_row_ns": 30.0,
                                   "no_runtime_row_ns": 130.0, "metg_lower_bound_seconds": pytest.approx(260e-9)}


def test_says_why_not(tmp_path, monkeypatch):
    monkeypatch.setattr(placement, "available_cores", lambda: 2)
    assert "is not built" in placement.probe(layout_with_probe(tmp_path / "a", None), [], 2)[1]
    broken = layout_with_probe(tmp_path / "b", "echo 'bad flag' >&2; exit 2\n")
    assert placement.probe(broken, [], 2) == (None, f"{placement.PROBE} printed no floor (bad flag)")
    assert placement.probe(broken, [], 1)[1] == "a probe needs 2 threads: fewer than 2 CPUs or columns"
    monkeypatch.setattr(placement, "available_cores", lambda: 1)
    assert placement.probe(broken, [], 2)[1] == "a probe needs 2 threads: fewer than 2 CPUs or columns"


def probes(*ns):
    return [{"after_run_id": k, "one_way_ns": x, "no_runtime_row_ns": 2 * x, "metg_lower_bound_seconds": 4e-9 * x,
             "workers": 2, "width": 2, "exchange_row_ns": x} for k, x in enumerate(ns)]


def test_two_placements_need_two_groups_of_probes_far_apart_each_lasting():
    flip = placement.placements(probes(52, 55, 205, 198, 60, 59, 201, 990, 199))
    assert flip.changed and flip.ranges == {"near cores": (52, 60), "far cores": (198, 990)}
    assert flip.labels == ["near cores", "near cores", "far cores", "far cores", "near cores", "near cores",
                           "far cores", "far cores", "far cores"]
    # A lone probe of the other group, between two of this one, is no placement.
    lone = placement.placements(probes(52, 55, 205, 58, 60, 201, 198))
    assert lone.changed and lone.labels[2] is None and lone.ranges["near cores"] == (52, 60)
    assert not placement.placements(probes(125, 240, 130, 150)).changed  # within 2x: one placement
    # A busy machine preempting a probe now and then: slow readings, never two in a row.
    assert not placement.placements(probes(151, 122, 981, 136, 140, 142, 996, 124, 135)).changed
    assert not placement.placements(probes(52, 205)).changed  # too few to tell


def test_a_run_takes_the_placement_of_the_probes_around_it():
    series = probes(52, 55, 205, 198)  # after runs 0, 1, 2, 3
    labels = placement.placements(series + probes(60, 201)).labels[:4]
    assert placement.tag(1, series, labels) == "near cores"  # between probes 0 and 1
    assert placement.tag(2, series, labels) is None  # between 55 and 205 ns: it moved meanwhile
    assert placement.tag(3, series, labels) == "far cores"
    assert placement.tag(9, series, labels) == "far cores"  # after the last probe
    assert placement.tag(None, series, labels) is None  # not a stored run


def test_the_floor_is_the_lowest_probe_with_its_interval():
    found = placement.floor_of(probes(130, 125, 140, 128, 150))
    assert found["no_runtime_row_ns"] == 250 and found["probes"] == 5
    low, high = found["metg_lower_bound_interval"]
    assert low == pytest.approx(500e-9) and 500e-9 <= high <= 600e-9
    assert "metg_lower_bound_interval" not in placement.floor_of(probes(130))
    assert placement.floor_of([]) is None


class Console:
    def __init__(self):
        self.lines = []

    def note(self, text):
        self.lines.append(text)

    warn = note


def test_probes_are_taken_about_every_second_and_stored_with_the_run_before_them(tmp_path, monkeypatch):
    store = Store(tmp_path / "s.db")
    params = campaign.SweepParams(systems=["native"], steps=10, width=2)
    store.create_campaign("c", "metg", params.to_dict(), {}, "m", None, {})
    readings = iter([140.0, 150.0, 145.0])
    monkeypatch.setattr(placement, "probe", lambda layout, graph, width: (probes(next(readings))[0], ""))
    now = [0.0]
    monkeypatch.setattr(campaign.time, "perf_counter", lambda: now[0])
    taken = campaign.Probes(store, None, "c", params, Console())
    taken.before_run()  # the first: at once
    taken.after_run({"id": 7})
    now[0] = 0.5
    taken.before_run()  # not yet
    taken.after_run({"id": 8})
    now[0] = 1.2
    taken.before_run()  # due
    stored = store.campaign("c")["machine"]["placement_probes"]
    assert [(p["after_run_id"], p["one_way_ns"]) for p in stored] == [(0, 140.0), (8, 150.0)]
    found = taken.record_floor()
    machine = store.campaign("c")["machine"]
    assert machine["no_runtime_floor"] == found and found["no_runtime_row_ns"] == 280.0
    assert machine["core_to_core_one_way_ns"] == [140.0, 150.0]


def test_a_metg_below_the_floor_has_it_measured_again_and_then_said_to_have_failed(monkeypatch):
    """native's METG (300 ns) lies below the floor's 480 ns: ten more probes, still 480 ns: the
    floor failed, and no x floor figure is drawn from it."""
    state = {"below": {"native": 3e-7}}
    monkeypatch.setattr("taskbench.measure.sweep.campaign.analyze", lambda store, name: None)
    monkeypatch.setattr("taskbench.measure.sweep.campaign.below_floor", lambda analysis: state["below"])
    written = {}
    store = SimpleNamespace(annotate_campaign_machine=lambda name, key, value: written.__setitem__(key, value))
    taken = SimpleNamespace(stored=probes(120.0), taken=0)

    def take():
        taken.taken += 1
        return {}

    taken.take = take
    taken.record_floor = lambda: dict(placement.floor_of(taken.stored))
    console = Console()
    campaign.check_floor(store, "c", taken, console)
    assert taken.taken == campaign.FLOOR_RETRIES
    assert written["no_runtime_floor"]["failed"] == {"native": 3e-7}
    assert console.lines[-1] == ("the no-runtime floor measurement failed: its METG(50%) bound, 480 ns (the lowest "
                                 "of 1 probe), lies above native's 300 ns; no x floor figure is drawn from it")
    # Measured again lower than the METG: nothing failed.
    state["below"], written = {}, {}
    campaign.check_floor(store, "c", taken, Console())
    assert written == {}


def test_a_failed_floor_draws_no_x_floor_figure():
    from taskbench.measure.metg.methods import MetgSummary, MetgValue
    from taskbench.report.tables import answer, floor_line

    def curve(name, seconds, cores):
        summary = MetgSummary([MetgValue(seconds, "found")] * 3, seconds=seconds, low=seconds * 0.97,
                              high=seconds * 1.03, status="found", found=3)
        return SimpleNamespace(system=name, summary=summary, processor="cpu", cores=cores, reference=cores == 1)

    floor = {**placement.floor_of(probes(120.0, 140.0)), "failed": {"native": 3e-7}}
    analysis = SimpleNamespace(params=SimpleNamespace(threshold=0.5), campaign={"machine": {"no_runtime_floor": floor}},
                               curves={"native": curve("native", 3e-7, 2), "mpi_p2p": curve("mpi_p2p", 7e-7, 2)})
    assert floor_line(analysis) == ("no-runtime floor: the no-runtime floor measurement failed: its METG(50%) bound, "
                                    "480 ns (the lowest of 2 probes), lies above native's 300 ns; no x floor figure "
                                    "is drawn from it")
    lines = answer(analysis)
    assert lines[0] == ("native has the smallest METG(50%) of the parallel systems: 300 ns (291–309), 2.33x below "
                        "mpi_p2p's 700 ns (679–721).")
    assert lines[-1].startswith("The no-runtime floor measurement failed: ")
    del floor["failed"]
    assert " the no-runtime floor (480 ns)" in answer(analysis)[0] and "METG / floor: native 0.6x" in floor_line(analysis)
