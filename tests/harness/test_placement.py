"""The core-to-core latency a campaign records: read from the probe's output, or said why not."""

from pathlib import Path

from taskbench.measure import placement
from taskbench.registry.locations import Layout


def layout_with_probe(tmp_path: Path, script: str | None) -> Layout:
    (tmp_path / "bin").mkdir(parents=True)
    if script is not None:
        (tmp_path / "bench").mkdir()
        probe = tmp_path / "bench" / placement.PROBE
        probe.write_text("#!/bin/sh\n" + script)
        probe.chmod(0o755)
    return Layout(bin_dir=tmp_path / "bin", systems_dir=None)


def test_reads_the_one_way_line(tmp_path, monkeypatch):
    monkeypatch.setattr(placement, "available_cores", lambda: 2)
    lay = layout_with_probe(tmp_path, 'echo "# best of 3"\necho "one-way cache line      14.9 ns"\n')
    assert placement.one_way_ns(lay) == (14.9, "")


def test_says_why_not(tmp_path, monkeypatch):
    monkeypatch.setattr(placement, "available_cores", lambda: 2)
    assert "is not built" in placement.one_way_ns(layout_with_probe(tmp_path / "a", None))[1]
    broken = layout_with_probe(tmp_path / "b", "exit 2\n")
    assert placement.one_way_ns(broken) == (None, f"{placement.PROBE} printed no latency (exit 2)")
    monkeypatch.setattr(placement, "available_cores", lambda: 1)
    assert placement.one_way_ns(broken)[1] == "fewer than 2 CPUs available"


def test_describe_flags_a_placement_change():
    assert placement.describe(140.0, 150.0) == (
        "a cache line took 140 ns one way between two CPUs at the start, 150 ns at the end", False)
    assert placement.describe(15.0, 140.0)[1] is True
    assert placement.describe(None, 140.0) == ("", False)


def test_a_campaign_keeps_the_lower_of_its_start_and_end_floors(monkeypatch):
    """A VM's vCPUs may move between cores during a campaign (one-way 202 ns at the start, 16 ns at
    the end, seen on the 2-vCPU machine): the floor is taken at both ends and the lower kept."""
    from taskbench.measure import campaign

    readings = iter([{"workers": 2, "width": 2, "exchange_row_ns": 150.0, "no_runtime_row_ns": 499.0,
                      "metg_lower_bound_seconds": 998e-9},
                     {"workers": 2, "width": 2, "exchange_row_ns": 19.0, "no_runtime_row_ns": 130.0,
                      "metg_lower_bound_seconds": 260e-9}])
    monkeypatch.setattr(placement, "floor", lambda layout, graph, width: (next(readings), ""))
    stored = {}

    class Store:
        def annotate_campaign_machine(self, name, key, value):
            stored[key] = value

    class Console:
        notes = []

        def note(self, text):
            self.notes.append(text)

    params = campaign.SweepParams(systems=["native"], pattern="stencil_1d", kernel="compute_bound", steps=10,
                                  width=2)
    start = campaign.record_floor(Store(), None, "c", params, Console())
    assert stored["no_runtime_floor"]["no_runtime_row_ns"] == 499.0
    campaign.record_floor(Store(), None, "c", params, Console(), earlier=start)
    assert stored["no_runtime_floor"]["no_runtime_row_ns"] == 130.0
    assert stored["no_runtime_floor"]["metg_lower_bound_seconds"] == 260e-9
    assert stored["no_runtime_floor"]["row_ns_start_end"] == [499.0, 130.0]
    assert Console.notes[-1].endswith("METG(50%) 260 ns (the lower of its start and end)")
