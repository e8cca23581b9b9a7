"""tbb_flow_persistent replays one window of rows: windows much shorter than the run, a window
length that is the least common multiple of the graphs' periods, a last replay that runs past
the end of every graph, dom's and tree's narrow rows inside a full-width window."""
from __future__ import annotations

import json

import pytest

from systems import PATTERNS, built_systems, local_systems, run, serial_totals, totals

SYSTEM = next((s for s in local_systems() if s.name == "tbb_flow_persistent"), None)
# Patterns with one dependence set: any window length fits them.
ONE_SET = [p for p in PATTERNS if p not in ("fft", "spread", "random_nearest", "random_spread")]


def graphs(patterns: list[str]) -> list[str]:
    args = []
    for k, pattern in enumerate(patterns):
        args += ["-and"] if args else []
        # odd graphs with scratch: the window then also orders each column's scratch buffer
        scratch = ["-kernel", "memory_bound", "-scratch", "4096", "-iter", "2"] if k % 2 else []
        args += ["-steps", str(11 + k % 3), "-width", "5", "-type", pattern, "-radix", "3",
                 "-period", "2", "-fraction", "0.5", *scratch]
    return args


@pytest.mark.parametrize("patterns, window, rows, replays", [
    (ONE_SET, 1, 1, 13),    # a replay per row: every edge between rows crosses a replay
    (PATTERNS, 1, 6, 3),    # fft's 3 sets (width 5) and -period 2: 6 rows, the last replay 5 past
    (PATTERNS, 7, 12, 2),
], ids=["one_row", "lcm_of_periods", "rounded_up"])
def test_replayed_window_matches_serial(tmp_path, patterns, window, rows, replays):
    if SYSTEM is None or SYSTEM.binary.name not in built_systems():
        pytest.skip("tbb_flow is not built in this build (see `taskbench systems` for why)")
    args = graphs(patterns)
    report = tmp_path / "report.json"
    got = run(SYSTEM, args + ["-window", str(window), "-json", str(report)])
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    persistent = json.loads(report.read_text())["system_report"]["persistent_graph"]
    assert (persistent["rows"], persistent["replays"]) == (rows, replays)
    assert persistent["nodes"] == rows * 5 * len(patterns)
