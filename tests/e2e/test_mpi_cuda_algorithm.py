"""mpi_cuda runs the Task Bench paper's MPI+CUDA (the original's mpi_gpu/nonblock_gpu.cc, on the
original's `cuda` branch), checked on the CUDA stand-in build (tests/gpu_standin: no GPU needed):

- the loop of the paper's MPI ports, counted through the MPI profiling interface as
  test_mpi_algorithm.py counts them: the whole run twice, each inside two barriers; one
  MPI_Waitall per rank per timestep; one message per dependence edge that crosses ranks;
- each task offloaded in turn on the rank's one stream, as the original's kernel does it: its
  data to the GPU and a wait, the kernel and a wait, its data back and a wait (the stand-in's
  call log, TASKBENCH_STANDIN_CALL_LOG). mpi_cuda_resident (-resident), a design of ours, is
  not the paper's: a row's tasks side by side, a copy each way per row.
"""

import collections
import subprocess

import pytest

from test_gpu_systems import ENV, STANDIN, TIMEOUT, ready
from test_mpi import launcher
from test_mpi_algorithm import BUILD, RUNS, crossing_edges, dependencies, owner

SLOT = 256  # bytes of a device input slot: a 16-byte output rounded up (core/gpu: slot_bytes)
OUTPUT = 16


def standin_run(ranks, args, tmp_path, preload=None):
    """The stand-in mpi_cuda under Open MPI's mpirun, with the call log: {pid: [call, ...]}."""
    ready(STANDIN)
    mpirun = launcher("openmpi")
    if mpirun is None:
        pytest.skip("no Open MPI mpirun")
    log = tmp_path / "calls"
    env = dict(ENV, TASKBENCH_STANDIN_CALL_LOG=str(log), TASKBENCH_MPI_COUNTS=str(tmp_path))
    exported = ["-x", "TASKBENCH_STANDIN_CALL_LOG", "-x", "TASKBENCH_MPI_COUNTS"]
    if preload:
        exported += ["-x", f"LD_PRELOAD={preload}"]
    cmd = [mpirun, "--oversubscribe", "-np", str(ranks), *exported, str(STANDIN / "mpi_cuda"), *args,
           "-expect-ranks", str(ranks)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stdout + out.stderr
    calls = collections.defaultdict(list)
    for line in (log.read_text() if log.exists() else "").splitlines():
        pid, call = line.split(" ", 1)
        calls[pid].append(call)
    return out, calls


def offloaded(pattern, width, steps, ranks, rank):
    """The calls one rank issues in one run: its tasks of every step in column order, each
    offloaded as the original offloads it (nothing to copy in for a task without inputs)."""
    calls = []
    for t in range(steps):
        for i in range(width):
            if owner(i, width, ranks) != rank:
                continue
            inputs = dependencies(pattern, width, 0, i) if t > 0 else []
            if inputs:
                calls += [f"to_device {len(inputs) * SLOT}", "stream_sync"]
            calls += ["launch", "stream_sync", f"to_host {OUTPUT}", "stream_sync"]
    return calls


@pytest.mark.parametrize("ranks", [1, 2])
def test_each_task_is_copied_in_run_and_copied_out_in_turn(ranks, tmp_path):
    width, steps = 4, 3
    out, calls = standin_run(ranks, ["-type", "stencil_1d", "-width", str(width), "-steps", str(steps)], tmp_path)
    assert "Total Tasks 12" in out.stdout
    assert len(calls) == ranks
    # Each rank's calls after its set-up's synchronize: each run, then the device's task count
    # read (a synchronize and the counter's copy).
    got = sorted(c[c.index("device_sync") + 1:] for c in calls.values())
    want = sorted((offloaded("stencil_1d", width, steps, ranks, r) + ["device_sync", "to_host 8"]) * RUNS
                  for r in range(ranks))
    assert got == want


@pytest.mark.parametrize("pattern,width,radix,ranks", [
    ("stencil_1d", 4, 0, 2),
    ("nearest", 6, 5, 2),  # a producer read by 2 consumers on the other rank: 2 messages
    ("all_to_all", 5, 0, 3),
])
def test_the_paper_mpi_loop(pattern, width, radix, ranks, tmp_path):
    counter = BUILD / "tests" / "mpi" / "libcount_mpi_calls_openmpi.so"
    if not counter.exists():
        pytest.skip(f"{counter} is not built")
    steps = 4
    args = ["-type", pattern, "-width", str(width), "-steps", str(steps), *(["-radix", str(radix)] if radix else [])]
    standin_run(ranks, args, tmp_path, preload=counter)
    counts = {}
    for r in range(ranks):
        words = (tmp_path / f"rank-{r}").read_text().split()
        counts[r] = {words[k]: int(words[k + 1]) for k in range(0, len(words), 2)}
    sent, received = crossing_edges(pattern, width, radix, steps, ranks)
    assert [counts[r]["barrier"] for r in range(ranks)] == [RUNS * 2] * ranks
    assert [counts[r]["waitall"] for r in range(ranks)] == [RUNS * steps] * ranks
    assert [counts[r]["isend"] for r in range(ranks)] == [RUNS * n for n in sent]
    assert [counts[r]["irecv"] for r in range(ranks)] == [RUNS * n for n in received]
