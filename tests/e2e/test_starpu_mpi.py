"""End-to-end tests of starpu_mpi (StarPU-MPI over Open MPI): real mpirun, 2 ranks (and 3 for
uneven blocks), totals equal serial's for every pattern with two graphs, large outputs, the fault
switch caught after the corrupted output crossed ranks through StarPU-MPI, rank mismatches."""
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
