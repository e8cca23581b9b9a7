"""realm (the paper's port: a shard task per processor, Subgraphs per window, phase barriers),
realm_driver and realm_driver_subgraph (one driver thread, events), all Realm from legate's
wheel: every pattern in one run against serial, other kernels and 1 MiB outputs, the fault
switch (corrupt, kill, hang) with nothing left running, bad flags in one line, the paper
port's shards, windows and barriers, rows built once as Subgraphs and reused, and the NVIDIA
driver the build chose (the machine's, or the stand-in) being the one that loads.
test_systems.py runs the shared matrix on them too. The wheel is installed by
scripts/install-large-engines.sh: under TASKBENCH_REQUIRE_LARGE_ENGINES=1 (scripts/test.sh's
last stage) an unbuilt realm fails here."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from large_engines import require, run_system
from systems import (BIN, BUILD, CORRUPTED, FAULT_GRAPHS, OTHER_KERNELS, PROBE, ROOT, assert_validation_failed,
                     every_pattern, registry, serial_totals, totals)

# systems/realm/system.toml's entries and their args.
VARIANTS = {s.name: s.entry.get("args", []) for s in registry() if s.entry.get("binary") == "realm"}
assert VARIANTS == {"realm": [], "realm_driver": ["-driver"], "realm_driver_subgraph": ["-driver", "-subgraph"]}
# The paper's port with other slot counts (2: the least; 3: windows of 3 rows for the period-1
# patterns, 6 for fft's and spread's 2 or 3), and the driver's Subgraphs of several rows, wired
# inside, and their outside preconditions merged (issue 50's variants): the same checks.
BLOCKS = {**VARIANTS, "realm -fields 2": ["-fields", "2"], "realm -fields 3": ["-fields", "3"],
          "3 rows": ["-driver", "-subgraph", "-subgraph-rows", "3"],
          "3 rows merged": ["-driver", "-subgraph", "-subgraph-rows", "3", "-subgraph-merge"]}


@pytest.fixture(autouse=True)
def built():
    require("realm", "legate")


@pytest.mark.parametrize("variant", BLOCKS)
def test_every_pattern_equals_serial(variant, probe):
    args = every_pattern()
    got = run_system("realm", [*BLOCKS[variant], "-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert got.stderr == ""
    assert totals(got.stdout) == serial_totals(args)


@pytest.mark.parametrize("workers", [1, 3])
def test_the_paper_port_with_other_shard_counts(workers, probe):
    """One shard owns every column (every edge within it); 3 shards over 4 columns split them
    1, 1, 2 (the original's block split) and every pattern's edges cross between them."""
    args = every_pattern(steps=8, width=4)
    got = run_system("realm", ["-worker", str(workers), *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def test_a_shard_with_nothing_to_do_in_a_window(probe):
    """tree's first row is column 0 alone and nothing reads columns 3-5 of 6: the second shard's
    only window has no task and no arrival (Realm refuses an empty Subgraph)."""
    args = ["-steps", "1", "-width", "6", "-type", "tree", "-and", "-steps", "3", "-width", "6", "-type", "tree"]
    got = run_system("realm", ["-worker", "2", *args], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


@pytest.mark.parametrize("variant", BLOCKS)
def test_other_kernels_scratch_and_1mib_outputs(variant, probe):
    got = run_system("realm", [*BLOCKS[variant], *OTHER_KERNELS], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(OTHER_KERNELS)


@pytest.mark.parametrize("variant", BLOCKS)
def test_a_corrupted_output_fails_validation(variant, probe):
    got = run_system("realm", [*BLOCKS[variant], *FAULT_GRAPHS], probe, CORRUPTED)
    assert_validation_failed(got)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_killed_task_kills_the_run(variant, probe):
    got = run_system("realm", [*VARIANTS[variant], *FAULT_GRAPHS], probe, {"TASKBENCH_FAULT": "kill:1,2,1"})
    assert got.returncode == -signal.SIGKILL, got.stderr
    assert "Total Tasks" not in got.stdout


def assert_a_hang_holds_the_run(argv: list[str], marker: str, seconds: float = 5) -> None:
    """A hung task (TASKBENCH_FAULT=hang:1,2,1) never lets the graph finish: the run is still
    going after `seconds`, prints no summary, and ends once killed (the probe fixture then checks
    that nothing of it is left)."""
    env = {**os.environ, PROBE: marker, "TASKBENCH_FAULT": "hang:1,2,1"}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=seconds)
    proc.kill()
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert "Running Task Benchmark" in out and "Total Tasks" not in out


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_hung_task_stops_the_run_until_it_is_killed(variant, probe):
    assert_a_hang_holds_the_run([str(BIN / "realm"), *VARIANTS[variant], *FAULT_GRAPHS], probe)


def test_realm_runs_the_paper_ports_design(tmp_path, probe):
    """The paper's port (the original's realm_subgraph/main.cc): a shard task per CPU processor,
    6 slots (the original run with -field 6), so windows of lcm(6, 1) = 6 rows. stencil_1d over 4 columns has 10
    edges (each column and its neighbours), a read-after-write and a write-after-read barrier
    per edge and slot: 120 barriers; no_comm over 2 columns 2 edges, 24. Each shard defines per
    graph the Subgraph of window 0 (row 0 reads nothing), one for the 5 windows alike and one
    for the short last window (rows 36-39); no_comm's 5 rows are one short window per shard.
    The old realm issued every task from one driver thread and made no Subgraph."""
    report = tmp_path / "r.json"
    args = ["-steps", "40", "-width", "4", "-type", "stencil_1d", "-and", "-steps", "5", "-width", "2",
            "-type", "no_comm"]
    got = run_system("realm", ["-worker", "2", *args, "-json", str(report)], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    system = json.loads(report.read_text())["system_report"]
    assert (system["realm_design"], system["realm_shards"], system["realm_fields"]) == ("shards", 2, 6)
    assert system["realm_barriers"] == 120 + 24
    assert system["realm_subgraphs"] == 2 * 3 + 2 * 1
    assert 0 < system["issue_seconds"]


def test_isomorphic_rows_share_one_subgraph(tmp_path, probe):
    """realm_driver_subgraph: stencil_1d's rows after the first are wired alike (a task waits
    for its inputs only): 40 timesteps build 2 Subgraphs (row 0, the rest), and -and's second
    graph its own 2."""
    report = tmp_path / "r.json"
    args = ["-steps", "40", "-width", "4", "-type", "stencil_1d", "-and", "-steps", "5", "-width", "2",
            "-type", "no_comm"]
    got = run_system("realm", [*VARIANTS["realm_driver_subgraph"], *args, "-json", str(report)], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    system = json.loads(report.read_text())["system_report"]
    assert (system["realm_design"], system["realm_subgraphs"]) == ("driver", 2 + 2)


def test_blocks_of_rows_wired_alike_share_one_subgraph(tmp_path, probe):
    """3 rows per Subgraph: stencil_1d's 40 rows are a first block (row 0 has no inputs), 12
    blocks wired alike and a last one of 1 row; no_comm's 5 rows a block of 3 and one of 2."""
    report = tmp_path / "r.json"
    args = ["-steps", "40", "-width", "4", "-type", "stencil_1d", "-and", "-steps", "5", "-width", "2",
            "-type", "no_comm"]
    got = run_system("realm", ["-driver", "-subgraph", "-subgraph-rows", "3", *args, "-json", str(report)], probe)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    system = json.loads(report.read_text())["system_report"]
    assert (system["realm_subgraphs"], system["subgraph_rows"], system["subgraph_merge"]) == (3 + 2, 3, False)
    assert 0 < system["issue_seconds"]


@pytest.mark.parametrize("args, message", [
    (["-driver", "-subgraph-rows", "2"], "taskbench: -subgraph-rows and -subgraph-merge go with -subgraph"),
    (["-driver", "-subgraph-merge"], "taskbench: -subgraph-rows and -subgraph-merge go with -subgraph"),
    (["-subgraph"], "taskbench: -subgraph goes with -driver"),
    (["-driver", "-fields", "6"], "taskbench: -fields goes without -driver"),
    (["-fields", "1"], "taskbench: -fields: invalid value '1'"),
    # A barrier phase per row and slot: Realm holds 2^20 - 1 phases per barrier.
    (["-steps", "2100000", "-width", "1", "-fields", "2"],
     "taskbench: -steps: invalid value '2100000'; more rows than Realm's barrier phases hold at -fields 2"),
    (["-driver", "-subgraph", "-subgraph-rows", "0"], "taskbench: -subgraph-rows: invalid value '0'"),
    (["-worker", "0"], "taskbench: -worker: invalid value '0'; expected an integer from 1 to 4095"),
    # Realm holds at most 4096 processors, its utility processor one of them.
    (["-worker", "4096"], "taskbench: -worker: invalid value '4096'; expected an integer from 1 to 4095"),
    (["-subgraph", "1"], "taskbench: "),
])
def test_bad_flags_are_one_line(args, message):
    got = run_system("realm", args)
    assert got.returncode == 2
    assert got.stdout == ""
    assert got.stderr.count("\n") == 1 and got.stderr.startswith(message), got.stderr


def test_the_driver_the_build_names_is_the_one_loaded():
    """Where the build found no libcuda.so.1 it built the stand-in, and realm loads that one;
    elsewhere the machine's, and no stand-in is there. `taskbench systems` names it."""
    note = json.loads((BUILD / "taskbench-build.json").read_text())["components"]["REALM"]["note"]
    standin = BUILD / "cuda-standin" / "libcuda.so.1"
    got = run_system("realm", ["-steps", "2", "-width", "2"], extra_env={"LD_DEBUG": "files"})
    assert got.returncode == 0, got.stderr
    # The dynamic loader's own account (LD_DEBUG=files): "calling init: PATH" per library loaded.
    # Resolved: an executable finds the stand-in through $ORIGIN (build/bin/../cuda-standin).
    loaded = [os.path.realpath(line.split("calling init: ")[1].strip()) for line in got.stderr.splitlines()
              if "calling init: " in line and "libcuda" in line]
    if "stand-in" in note:
        assert standin.exists()
        assert str(standin) in loaded, got.stderr[-2000:]
    else:
        assert not standin.exists()
        assert "this machine's" in note
        assert loaded and all("cuda-standin" not in path for path in loaded)
    shown = subprocess.run([sys.executable, "-m", "taskbench", "systems", "-q", "--build-dir", str(BUILD)],
                           capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
    row = next(line for line in shown.stdout.splitlines() if line.startswith("realm_driver_subgraph\t"))
    assert "NVIDIA driver: " in row and ("stand-in" in note) == ("stand-in" in row)
