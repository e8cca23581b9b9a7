"""The MPI systems run the Task Bench paper's algorithms (docs/paper-ports.md), counted through
the MPI profiling interface (build/tests/mpi/libcount_mpi_calls_<flavor>.so, preloaded into
every rank) and, for the SimGrid builds, through SMPI's time-independent trace:

- the whole run twice, each inside two barriers, the second timed (the original's `iter < 2`;
  once on a simulated platform, which has no first-run costs);
- one MPI_Waitall per rank per timestep, after which the step's tasks run;
- mpi_bulk: an MPI_Barrier every timestep besides (the original's bulk_synchronous.cc);
- one message per dependence edge that crosses ranks, each way, the blocks of columns split as
  the original splits them (rank r from column floor(r x width / ranks)).

The edges are counted here from docs/spec.md's definitions of the patterns, not from the core."""

import os
import pathlib
import subprocess

import pytest

from test_mpi import BIN, ENV, TIMEOUT, binary, launcher
from test_smpi import CORES_PER_NODE, SMALL, SMPIRUN
from taskbench.launch.smpirun import QUIET

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = BIN.parent
RUNS = 2  # the warm-up run and the timed one
SIMULATED_RUNS = 1  # a simulated platform has no first-run costs: no warm-up (session.h)


def dependencies(pattern, width, radix, i):
    """docs/spec.md §1: the points of the row before that task i reads."""
    if pattern == "stencil_1d":
        points = range(i - 1, i + 2)
    elif pattern == "nearest":
        points = range(i - radix // 2, i + (radix - 1) // 2 + 1)
    elif pattern == "all_to_all":
        points = range(width)
    else:
        raise ValueError(pattern)
    return [j for j in points if 0 <= j < width]


def owner(column, width, ranks):
    """The original's split: rank r owns floor(r W / R) up to floor((r + 1) W / R) - 1."""
    return next(r for r in range(ranks) if r * width // ranks <= column < (r + 1) * width // ranks)


def crossing_edges(pattern, width, radix, steps, ranks):
    """(sent, received) per rank over one run: every edge from row t-1 to row t whose two ends
    lie on different ranks, counted at the producer's rank and at the consumer's."""
    sent, received = [0] * ranks, [0] * ranks
    for i in range(width):
        for j in dependencies(pattern, width, radix, i):
            if owner(i, width, ranks) != owner(j, width, ranks):
                sent[owner(j, width, ranks)] += steps - 1
                received[owner(i, width, ranks)] += steps - 1
    return sent, received


def counted_run(system, flavor, ranks, args, tmp_path, threads=None):
    """The system's run under mpirun with the counter preloaded: {rank: {call: count}}."""
    exe = binary(system, flavor)
    counter = BUILD / "tests" / "mpi" / f"libcount_mpi_calls_{flavor}.so"
    if not counter.exists():
        pytest.skip(f"{counter} is not built")
    env = dict(ENV, TASKBENCH_MPI_COUNTS=str(tmp_path))
    program = [str(exe), *args, "-expect-ranks", str(ranks), *(["-worker", str(threads)] if threads else [])]
    if flavor == "openmpi":
        cmd = [launcher(flavor), "--oversubscribe", "-np", str(ranks), "-x", "TASKBENCH_MPI_COUNTS",
               "-x", f"LD_PRELOAD={counter}", *program]
    else:
        cmd = [launcher(flavor), "-np", str(ranks), "-genv", "LD_PRELOAD", str(counter), *program]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stdout + out.stderr
    counts = {}
    for r in range(ranks):
        words = (tmp_path / f"rank-{r}").read_text().split()
        counts[r] = {words[k]: int(words[k + 1]) for k in range(0, len(words), 2)}
    return counts


FLAVORS = ["openmpi", "mpich"]
# The paper's ports by (system, flavor): mpi_openmp_llvm (LLVM's libomp) is built for Open MPI only.
PORTS = [(s, f) for s in ("mpi_p2p", "mpi_bulk", "mpi_openmp") for f in FLAVORS] + [("mpi_openmp_llvm", "openmpi")]
BARRIERS_PER_STEP = {"mpi_p2p": 0, "mpi_bulk": 1, "mpi_openmp": 0, "mpi_openmp_llvm": 0}
THREADED = ("mpi_openmp", "mpi_openmp_llvm")
TWO_GRAPHS = ["-type", "stencil_1d", "-width", "4", "-steps", "7",
              "-and", "-type", "nearest", "-radix", "5", "-width", "6", "-steps", "3"]


@pytest.mark.parametrize("system,flavor", PORTS)
def test_barriers_and_waits_per_timestep(system, flavor, tmp_path):
    counts = counted_run(system, flavor, 2, TWO_GRAPHS, tmp_path, threads=2 if system in THREADED else None)
    steps = 7 + 3
    for rank, c in counts.items():
        assert c["barrier"] == RUNS * (2 + BARRIERS_PER_STEP[system] * steps), (rank, c)
        assert c["waitall"] == RUNS * steps, (rank, c)


@pytest.mark.parametrize("system,flavor", PORTS)
@pytest.mark.parametrize("pattern,width,radix,ranks", [
    ("stencil_1d", 4, 0, 2),
    ("nearest", 6, 5, 2),   # a producer read by 2 consumers on the other rank: 2 messages
    ("nearest", 7, 5, 3),   # widths that do not divide: the later ranks hold more
    ("all_to_all", 5, 0, 3),
])
def test_one_message_per_dependence_edge(system, flavor, pattern, width, radix, ranks, tmp_path):
    steps = 4
    args = ["-type", pattern, "-width", str(width), "-steps", str(steps), *(["-radix", str(radix)] if radix else [])]
    counts = counted_run(system, flavor, ranks, args, tmp_path, threads=1 if system in THREADED else None)
    sent, received = crossing_edges(pattern, width, radix, steps, ranks)
    assert [counts[r]["isend"] for r in range(ranks)] == [RUNS * n for n in sent]
    assert [counts[r]["irecv"] for r in range(ranks)] == [RUNS * n for n in received]


def smpi_actions(system, nodes, args, tmp_path):
    """{rank: {action: count}} from SMPI's time-independent trace of a run on `small`."""
    exe = BIN / system
    if not exe.exists():
        pytest.skip(f"{system} is not built (the configure summary says why: SMPI)")
    ranks = nodes * CORES_PER_NODE
    hostfile = tmp_path / "hosts"
    hostfile.write_text("".join(f"node-{n}\n" * CORES_PER_NODE for n in range(nodes)))
    trace = tmp_path / "trace.txt"
    argv = [str(SMPIRUN), *QUIET, "-trace-ti", f"--cfg=tracing/filename:{trace}", "-platform", str(SMALL),
            "-hostfile", str(hostfile), "-np", str(ranks), str(exe), *args, "-expect-ranks", str(ranks)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path,
                         env=dict(ENV, TMPDIR=str(tmp_path)))
    assert out.returncode == 0, out.stdout + out.stderr
    actions = {}
    for name in trace.read_text().split():  # a file per rank, named ..._rank-<rank + 1>.txt
        rank = int(name.rsplit("_rank-", 1)[1].removesuffix(".txt")) - 1
        for record in (tmp_path / name).read_text().splitlines():
            action = record.split()[1]
            actions.setdefault(rank, {}).setdefault(action, 0)
            actions[rank][action] += 1
    return actions


@pytest.mark.parametrize("system,barriers_per_step", [("mpi_p2p_smpi", 0), ("mpi_bulk_smpi", 1)])
def test_simulated_builds_run_the_same_algorithm(system, barriers_per_step, tmp_path):
    steps, width = 6, 8
    actions = smpi_actions(system, 1, ["-type", "stencil_1d", "-width", str(width), "-steps", str(steps)], tmp_path)
    sent, received = crossing_edges("stencil_1d", width, 0, steps, CORES_PER_NODE)
    for rank, a in actions.items():
        assert a["barrier"] == SIMULATED_RUNS * (2 + barriers_per_step * steps), (rank, a)
        assert a["waitall"] == SIMULATED_RUNS * steps, (rank, a)
        assert a.get("isend", 0) == SIMULATED_RUNS * sent[rank], (rank, a)
        assert a.get("irecv", 0) == SIMULATED_RUNS * received[rank], (rank, a)
