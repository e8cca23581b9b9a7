"""bench_exchange_floor: the no-runtime floor of any graph on W pinned threads. Its threads
run the core's execute_point, which validates every input, so a floor loop that let a column
overwrite an output before its consumers read it would fail here (exit 3) on some pattern."""
from __future__ import annotations

import os
import subprocess

import pytest

from systems import BUILD, PATTERNS, graph, serial_totals, totals

FLOOR = BUILD / "bench" / "bench_exchange_floor"
LINES = ("one-way cache line", "exchange per row", "no-runtime row", "METG(50%) lower bound")


def floor(*args, env=None):
    if not FLOOR.exists():
        pytest.skip(f"{FLOOR} is not built")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the floor pins 2 threads: fewer than 2 CPUs here")
    return subprocess.run([str(FLOOR), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def figures(stdout: str) -> dict[str, float]:
    return {label: float(line[len(label):].split()[0]) for line in stdout.splitlines()
            for label in LINES if line.startswith(label)}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_runs_validated_with_a_block_of_columns_per_thread(pattern):
    got = floor("-workers", "2", "-reps", "1", "-steps", "400", "-width", "5", "-type", pattern, "-radix", "3",
                "-output", "64")
    assert got.returncode == 0, got.stderr
    values = figures(got.stdout)
    assert set(values) == set(LINES) and all(v > 0 for v in values.values()), got.stdout
    # 2 threads for 5 columns: the bound is 2 x row x 2 / 5 (printed to the ns).
    assert values["METG(50%) lower bound"] == pytest.approx(2 * values["no-runtime row"] * 2 / 5 / 1000, abs=2e-3)
    assert f"{pattern}, 400 steps x 5 wide" in got.stdout


def test_a_corrupted_input_fails_validation_inside_the_floor():
    got = floor("-reps", "1", "-steps", "50", "-width", "4", env={"TASKBENCH_FAULT": "corrupt:0,2,1"})
    assert got.returncode == 3 and "validation failed" in got.stderr, got.stderr


@pytest.mark.parametrize("pattern", PATTERNS)
def test_as_a_system_it_runs_the_whole_graph_with_its_kernel_and_counts_what_serial_counts(pattern):
    """-system: the floor swept as a system in a METG campaign. Serial's totals (every task ran,
    with its kernel: the FLOPs and bytes count it) and its own time in the summary lines."""
    args = graph(pattern, steps=40, width=5, extra=("-kernel", "compute_bound", "-iter", "30"))
    got = floor("-system", *args)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    assert float(got.stdout.split("Elapsed Time ")[1].split()[0]) > 0


def test_as_a_system_a_corrupted_input_fails_validation():
    got = floor("-system", *graph("nearest", steps=20, width=4), env={"TASKBENCH_FAULT": "corrupt:0,6,2"})
    assert got.returncode == 3 and "Total Tasks" not in got.stdout, got.stdout
    assert "expected the output of (t=6, i=2)" in got.stderr.splitlines()[-1], got.stderr


@pytest.mark.parametrize("args, message", [
    (["-kernel", "compute_bound"], "the floor is measured with the empty kernel (-kernel empty)"),
    (["-workers", "4", "-width", "3"], "-width must be at least -workers"),
    (["-workers", "4097"], "-workers"),
    (["-steps", "5", "-and", "-steps", "5"], "one graph only (no -and)"),
])
def test_bad_flags_are_one_line_and_status_2(args, message):
    got = floor(*args)
    assert got.returncode == 2 and got.stdout == ""
    assert len(got.stderr.strip().splitlines()) == 1 and message in got.stderr, got.stderr


def test_more_workers_than_cpus_is_refused():
    cpus = len(os.sched_getaffinity(0))
    got = floor("-workers", str(cpus + 1), "-width", str(cpus + 1))
    assert got.returncode == 2
    assert got.stderr.strip() == (f"bench_exchange_floor: needs a CPU per worker, more than this process may run "
                                  f"on (-workers {cpus + 1}, {cpus} CPUs available)")
