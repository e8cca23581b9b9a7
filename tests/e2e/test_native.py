"""The native systems beyond what test_systems.py checks: persistent blocks replayed with
lengths that do not divide the steps (or the period), many graphs at once, -breakdown."""
from __future__ import annotations

import json

import pytest

from systems import PATTERNS, built_systems, local_systems, run, totals

BY_NAME = {s.name: s for s in local_systems()}
BUILT = set(built_systems())
SERIAL = BY_NAME["serial"]
NATIVE = [n for n in ("native", "native_dynamic", "native_fifo") if n in BY_NAME]
PERSISTENT = ["native", "native_fifo"]


def system(name: str):
    if BY_NAME[name].binary.name not in BUILT or not BY_NAME[name].binary.exists():
        pytest.skip(f"{name} is not built")
    return BY_NAME[name]


def same_totals(name: str, args: list[str], workers: int = 2, own: tuple = ()):
    want = run(SERIAL, args)
    got = run(system(name), ["-worker", str(workers), *own, *args])
    assert want.returncode == 0, want.stderr
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == totals(want.stdout)
    return got


# Blocks of 1, 2, 3, 4 and 5 rows over 12 or 13 steps: odd blocks change the buffer parity, 5 does not
# divide the fft/spread periods, the last block is short; dom and tree change shape per row.
# (a block length that divides the steps makes block 0 replay the graph built for block 1).
@pytest.mark.parametrize("steps,block", [("13", "1"), ("13", "2"), ("13", "3"), ("12", "4"), ("13", "5")])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("name", PERSISTENT)
def test_blocks_not_dividing_steps_or_period(name, pattern, steps, block):
    args = ["-steps", steps, "-width", "9", "-type", pattern, "-radix", "4", "-period", "3",
            "-fraction", "0.5", "-kernel", "busy_wait", "-iter", "50"]
    got = same_totals(name, args, workers=3, own=("-block", block))
    assert got.stdout.count("Total Tasks") == 1


@pytest.mark.parametrize("name", NATIVE)
def test_many_graphs_at_once(name):
    args = []
    for k, pattern in enumerate(PATTERNS):
        if k:
            args.append("-and")
        args += ["-steps", str(5 + 3 * k), "-width", str(3 + k), "-type", pattern, "-period", "2",
                 "-kernel", "load_imbalance", "-iter", "200", "-imbalance", "1.5", "-scratch", "64",
                 "-output", str(16 + 8 * k)]
    same_totals(name, args, workers=4)


@pytest.mark.parametrize("name", NATIVE)
def test_breakdown_in_json_and_stdout(name, tmp_path):
    report = tmp_path / "r.json"
    got = run(system(name), ["-worker", "2", "-steps", "200", "-width", "4", "-type", "stencil_1d",
                             "-kernel", "compute_bound", "-iter", "100", "-breakdown", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    assert "Breakdown (ns per task) work" in got.stdout
    r = json.loads(report.read_text())["system_report"]
    b = r["breakdown"]
    assert b["tasks"] == 800 and len(b["threads"]) == 2
    assert sum(t["tasks"] for t in b["threads"]) == 800
    s = b["seconds"]
    assert s["work"] > 0 and s["overhead"] >= 0 and s["idle"] >= 0 and s["discovery"] > 0
    # work + overhead + idle + discovery is the threads' time over the measured window
    assert s["work"] + s["overhead"] + s["idle"] + s["discovery"] == pytest.approx(
        s["elapsed"] * 2, rel=0.05)
    assert r["schedule"]["mode"] in ("persistent", "dynamic")


@pytest.mark.parametrize("name", PERSISTENT)
def test_steady_blocks_are_built_once(name, tmp_path):
    report = tmp_path / "r.json"
    got = run(system(name), ["-steps", "1000", "-width", "4", "-type", "fft", "-block", "12",
                             "-json", str(report)])
    assert got.returncode == 0, got.stderr
    g = json.loads(report.read_text())["system_report"]["schedule"]["graphs"][0]
    # fft on 4 points repeats every 2 rows: a head block of 2 + 998 % 12 = 4 rows, then 83
    # blocks of 12 rows that all replay the graph built for the first of them; homed (native),
    # those 83 go in one submit, with no barrier between them
    homed = name == "native"
    assert g["rows"] == 12 and g["replays"] == 84 and g["builds"] == 2
    assert g["submits"] == (2 if homed else 84)
    got = run(system(name), ["-steps", "1000", "-width", "4", "-type", "stencil_1d", "-block", "10",
                             "-kernel", "memory_bound", "-scratch", "1024", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    g = json.loads(report.read_text())["system_report"]["schedule"]["graphs"][0]
    assert g["rows"] == 10 and g["replays"] == 100 and g["builds"] == 1
    assert g["submits"] == (1 if homed else 100)


@pytest.mark.parametrize("steps,rows", [(1000, 2), (65536, 16), (262144, 32)])
def test_homed_block_rows_grow_as_the_root_of_the_steps(steps, rows, tmp_path):
    # One period (2 rows) for every length made native's empty kernel 20% slower at 218600
    # steps, in two modes from run to run (systems/native/README.md, Block length).
    report = tmp_path / "r.json"
    got = run(system("native"), ["-steps", str(steps), "-width", "2", "-type", "stencil_1d",
                                 "-kernel", "empty", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    g = json.loads(report.read_text())["system_report"]["schedule"]["graphs"][0]
    assert g["rows"] == rows and g["replays"] * rows == steps and g["submits"] == 1


def test_worker_flag_rejects_zero():
    got = run(system("native"), ["-worker", "0"])
    assert got.returncode == 2 and "-worker" in got.stderr


# spread and random_spread read other columns than the ones that read them, so overwriting a
# double buffer needs the write-after-read edges of predecessors.h; unequal task times make a
# missing edge show up as a validation failure (it did, every time, with those edges removed).
@pytest.mark.parametrize("seed", ["1", "2", "3"])
@pytest.mark.parametrize("name", NATIVE)
def test_write_after_read_edges(name, seed):
    args = ["-steps", "200", "-width", "9", "-type", "random_spread", "-radix", "3", "-period", "5",
            "-fraction", "0.3", "-kernel", "load_imbalance", "-iter", "200", "-imbalance", "2",
            "-and", "-steps", "100", "-width", "6", "-type", "spread", "-radix", "2", "-period", "3",
            "-kernel", "load_imbalance", "-iter", "300", "-imbalance", "2", "-seed", seed]
    same_totals(name, args, workers=3)


# Both ways of running a persistent graph: homed (each worker its own columns, readiness
# polled; native's default) and through the queues (stolen when idle; native_fifo's), with
# more workers than columns and fewer, on every pattern, two graphs at once.
@pytest.mark.parametrize("workers", [3, 8])
@pytest.mark.parametrize("home", ["0", "1"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("name", PERSISTENT)
def test_home_modes(name, pattern, home, workers):
    args = ["-steps", "30", "-width", "5", "-type", pattern, "-radix", "3", "-period", "3",
            "-fraction", "0.5", "-kernel", "load_imbalance", "-iter", "100", "-imbalance", "2",
            "-and", "-steps", "17", "-width", "7", "-type", "spread", "-radix", "2",
            "-kernel", "busy_wait", "-iter", "50", "-output", "40"]
    same_totals(name, args, workers=workers, own=("-home", home, "-block", "4"))


@pytest.mark.parametrize("name,homed", [("native", True), ("native_fifo", False)])
def test_home_default_in_report(name, homed, tmp_path):
    report = tmp_path / "r.json"
    got = run(system(name), ["-steps", "20", "-width", "4", "-json", str(report)])
    assert got.returncode == 0, got.stderr
    assert json.loads(report.read_text())["system_report"]["schedule"]["homed"] is homed


def test_home_flag_rejects_two():
    got = run(system("native"), ["-home", "2"])
    assert got.returncode == 2
    assert got.stderr.strip() == "taskbench: -home: invalid value '2'; expected 0 or 1"
