"""End-to-end tests of the starpu_mpi binary (StarPU-MPI over Open MPI, the paper's StarPU port):
real mpirun, 2 ranks (and 3 for uneven blocks), totals equal serial's for every pattern with two
graphs, large outputs, the fault switch caught after the corrupted output crossed ranks through
StarPU-MPI, rank mismatches; and as the `starpu` entry runs it (one rank, every core a worker),
with the paper's reserved core, and the original's pruning of the tasks a rank submits."""
import json

import pytest

from test_mpi import BIN, ENV, PATTERNS, mpi_command, run, serial_summary, summary, two_graphs


def exe():
    path = BIN / "starpu_mpi"
    if not path.exists():
        pytest.skip("starpu_mpi is not built (see the configure summary: STARPU_MPI)")
    return path


def launch(ranks, args, env=ENV):
    # One CPU worker per rank, bound inside the core mpirun gave the rank (as the registry does).
    return run(mpi_command("openmpi", ranks, exe(), [*args, "-expect-ranks", str(ranks), "-worker", "1"]),
               env=dict(env, STARPU_WORKERS_GETBIND="1"))


def check_against_serial(ranks, args):
    out = launch(ranks, args)
    what = f"starpu_mpi x{ranks} {' '.join(args)}"
    assert out.returncode == 0, f"{what}:\n{out.stdout}\n{out.stderr}"
    assert summary(out.stdout) == serial_summary(tuple(args)), what


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_matches_serial(pattern):
    check_against_serial(2, two_graphs(pattern))


def test_three_ranks():
    """Blocks of 7 and 5 columns over 3 ranks: uneven, and the narrow rows of dom. (One case:
    StarPU-MPI takes seconds per launch on 2 shared cores, see systems/starpu/README.md.)"""
    check_against_serial(3, two_graphs("dom"))


def test_large_outputs_and_scratch():
    args = ["-type", "nearest", "-radix", "5", "-width", "6", "-steps", "4", "-output", str(1 << 20),
            "-and", "-type", "stencil_1d", "-width", "4", "-steps", "5", "-kernel", "memory_bound",
            "-scratch", "8192", "-iter", "3"]
    check_against_serial(2, args)


def test_fault_fails_through_messages():
    """Corrupt (t=1, i=1) of a 4-wide tree: its consumers (2, 2) and (2, 3) run on rank 1, so
    the corruption is seen only after StarPU-MPI moved it there."""
    out = launch(2, ["-type", "tree", "-width", "4", "-steps", "3"], env=dict(ENV, TASKBENCH_FAULT="corrupt:0,1,1"))
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "validation failed" in text, text
    assert "task (t=2, i=2)" in text or "task (t=2, i=3)" in text, text


def test_rank_count_mismatch():
    out = run(mpi_command("openmpi", 2, exe(), ["-expect-ranks", "3"]))
    assert out.returncode != 0
    assert "-expect-ranks 3, but this process is rank" in out.stderr, out.stderr
    assert "Total Tasks" not in out.stdout


def one_rank(args, workers, env=ENV):
    """The `starpu` entries' layout: one rank, its cores as CPU workers (mpirun maps both to it)."""
    command = mpi_command("openmpi", 1, exe(), [*args, "-expect-ranks", "1", "-worker", str(workers)])
    command[1:1] = ["--map-by", f"slot:PE={workers}"]
    return run(command, env=dict(env, STARPU_WORKERS_GETBIND="1"))


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_one_rank_with_every_core_a_worker(pattern):
    out = one_rank(two_graphs(pattern), 2)
    assert out.returncode == 0, out.stdout + out.stderr
    assert summary(out.stdout) == serial_summary(tuple(two_graphs(pattern)))


def test_a_reserved_core_is_counted_but_runs_no_worker(tmp_path):
    """The paper's launch: STARPU_RESERVE_NCPU=1 with -worker 2 (its -core) starts 1 worker; the
    run counts both cores, as the paper's efficiency counted all 32 for 31 workers."""
    report = tmp_path / "report.json"
    out = one_rank(["-type", "stencil_1d", "-width", "1", "-steps", "6", "-json", str(report)], 2,
                   env=dict(ENV, STARPU_RESERVE_NCPU="1"))
    assert out.returncode == 0, out.stdout + out.stderr
    got = json.loads(report.read_text())
    assert {k: got["system_report"][k] for k in ("starpu_workers", "starpu_reserved_cpus")} == {
        "starpu_workers": 1, "starpu_reserved_cpus": 1}
    assert got["parallelism"] == {"ranks": 1, "threads_per_rank": 2, "cores": 2}


def test_a_reservation_that_leaves_no_worker_is_one_line():
    out = one_rank(["-steps", "2"], 1, env=dict(ENV, STARPU_RESERVE_NCPU="1"))
    assert out.returncode != 0
    assert "taskbench: -worker 1: STARPU_RESERVE_NCPU=1 leaves no CPU worker\n" in out.stderr, out.stderr


@pytest.mark.parametrize("pattern,submitted", [
    # Rank 0 owns columns 0 and 1 of 4: row 0 its own 2 tasks; every later row also (t, 2),
    # which reads its column 1 (it must send it). (t, 3) reads columns 2 to 3 only: pruned.
    ("stencil_1d", 2 + 3 * 4),
    ("no_comm", 2 * 5),   # only its own columns
    ("all_to_all", 2 + 4 * 4),  # every task reads one of its columns
])
def test_a_rank_submits_only_the_tasks_it_has_a_part_in(pattern, submitted, tmp_path):
    """The original's pruning (ENABLE_PRUNE_MPI_TASK_INSERT): 4 columns, 5 steps, 2 ranks."""
    report = tmp_path / "report.json"
    args = ["-type", pattern, "-width", "4", "-steps", "5", "-json", str(report)]
    out = launch(2, args)
    assert out.returncode == 0, out.stdout + out.stderr
    assert summary(out.stdout) == serial_summary(tuple(args[:-2]))
    assert json.loads(report.read_text())["system_report"]["starpu_tasks_submitted"] == submitted
