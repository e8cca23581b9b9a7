"""The CUDA component's systems: cuda, cuda_graph, mpi_cuda (offload and -resident, 1, 2 and 4
ranks sharing the GPU).

Everywhere (CI has no GPU): flags are checked before the GPU is looked for (a kernel without a GPU
version, too many inputs: status 2 and the core's one line), and without a usable device every
binary ends in one line with status 4. The matrix (every pattern, -and, every GPU kernel, 1 MiB
outputs, the fault switch, totals equal to serial's) runs twice: on the stand-in build
(build/tests/gpu-standin: the same system and core sources over tests/gpu_standin, a CUDA runtime
stand-in that runs tasks on the host in a random order allowed by the streams and events), which
every machine with the CUDA component has; and on the real binaries where a CUDA device is
(`pytest -m gpu`, bench/gpu.sh).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess

import pytest

from systems import BIN, BUILD, PATTERNS, gpu_problem, graph, serial_totals, totals
from test_systems import CASES as SHARED_CASES

# Open MPI refuses to run as root without these; harmless otherwise.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("TASKBENCH_FAULT", None)
BINARIES = ["cuda", "cuda_graph", "mpi_cuda"]
STANDIN = BUILD / "tests" / "gpu-standin"
TIMEOUT = 120
GPU_KERNELS = "empty, busy_wait, compute_bound, compute_bound2, memory_bound, memory_daxpy"
# Where the matrix runs: the stand-in build, and the real binaries on a GPU.
WHERE = [pytest.param(STANDIN, id="standin"), pytest.param(BIN, id="gpu", marks=pytest.mark.gpu)]


def device_problem() -> str | None:
    """None where a CUDA device can run tasks, else the one line the systems print."""
    path = BIN / "cuda"
    return gpu_problem(str(path)) if path.exists() else "cuda is not built"


def ready(where):
    """Skips unless the binaries of `where` can run here."""
    if where == STANDIN:
        if not (STANDIN / "cuda").exists():
            pytest.skip("the stand-in build is absent (the CUDA component is off: see `taskbench systems`)")
    elif problem := device_problem():
        pytest.skip(f"needs a CUDA device: {problem}")


def command(name: str, args: list[str], ranks: int | None = None, where=BIN) -> list[str]:
    exe = where / name
    if not exe.exists():
        pytest.skip(f"{name} is not built in {where} (the CUDA component is off: see `taskbench systems`)")
    if ranks is None:
        return [str(exe), *args]
    mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("no Open MPI mpirun")
    return [mpirun, "--oversubscribe", "-np", str(ranks), str(exe), *args]


def run(name: str, args: list[str], ranks: int | None = None, env: dict | None = None, timeout=TIMEOUT, where=BIN):
    return subprocess.run(command(name, args, ranks, where), capture_output=True, text=True,
                          env={**ENV, **(env or {})}, timeout=timeout)


# --- everywhere -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARIES)
def test_a_kernel_without_a_gpu_version_is_a_usage_error(name):
    got = run(name, ["-steps", "2", "-kernel", "load_imbalance", "-iter", "4"])
    assert got.returncode == 2, got.stderr
    assert got.stderr.splitlines() == [
        f"taskbench: -kernel: invalid value 'load_imbalance' for a GPU system; expected one of {GPU_KERNELS}"]


@pytest.mark.parametrize("name", BINARIES)
def test_more_inputs_than_a_launch_carries_is_a_usage_error(name):
    got = run(name, ["-steps", "2", "-width", "1100", "-type", "all_to_all"])
    assert got.returncode == 2, got.stderr
    assert got.stderr.splitlines() == [
        "taskbench: -width/-radix: tasks of 1100 inputs; a GPU task takes at most 1024"]


@pytest.mark.parametrize("name", BINARIES)
def test_without_a_device_one_line_and_status_4(name):
    if device_problem() is None:
        pytest.skip("this machine has a usable CUDA device")
    got = run(name, ["-steps", "2", "-width", "2"])
    assert got.returncode == 4, got.stderr
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("taskbench: no usable CUDA device: "), got.stderr
    assert got.stdout == ""


def test_cuda_graph_takes_a_window_of_at_least_one_row():
    assert "-window" in run("cuda_graph", ["-h"]).stdout
    got = run("cuda_graph", ["-window", "0"])
    assert got.returncode == 2 and got.stderr.startswith("taskbench: -window: invalid value '0'"), got.stderr


# --- on a GPU -------------------------------------------------------------------------------

# (system, ranks, extra flags): every way the component runs tasks.
VARIANTS = [("cuda", None, []), ("cuda_graph", None, []), ("cuda_graph", None, ["-window", "2"]),
            ("mpi_cuda", 1, []), ("mpi_cuda", 2, []), ("mpi_cuda", 4, []),
            ("mpi_cuda", 2, ["-resident"]), ("mpi_cuda", 4, ["-resident"])]
VARIANT_IDS = [f"{s}{'' if r is None else f'-{r}ranks'}{''.join(x)}" for s, r, x in VARIANTS]


# test_systems.py's first two cases (GPU kernels only), and ...
CASES = {
    "compute": SHARED_CASES["compute"],
    "two_graphs": SHARED_CASES["two_graphs"],
    # ... steps not a multiple of any window, and outputs of odd sizes.
    "odd_rows_and_outputs": lambda p: graph(p, 21, 6, ("-output", "1040")) + ["-and"] + graph(p, 13, 3, ("-output", "17")),
}


def check_against_serial(where, name, ranks, extra, args):
    ready(where)
    got = run(name, [*extra, *args], ranks, where=where)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)


def every_pattern(case: str) -> list[str]:
    """The case for every pattern, side by side in one run (-and): one launch per variant and case
    (a launch on a GPU costs a context's start-up; the failing graph's index names the pattern)."""
    args = []
    for pattern in PATTERNS:
        args += (["-and"] if args else []) + CASES[case](pattern)
    return args


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name,ranks,extra", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("where", WHERE)
def test_totals_equal_serial_for_every_pattern(where, name, ranks, extra, case):
    check_against_serial(where, name, ranks, extra, every_pattern(case))


@pytest.mark.parametrize("kernel", [
    ("-kernel", "empty"),
    ("-kernel", "memory_daxpy", "-scratch", "8192", "-iter", "4"),
    ("-kernel", "compute_bound2", "-iter", "9"),
    ("-kernel", "memory_bound", "-scratch", "65536", "-sample", "4", "-iter", "5"),
    ("-output", "1048576", "-steps", "3", "-width", "3"),
], ids=["empty", "daxpy", "compute2", "memory_bound", "1MiB_output"])
@pytest.mark.parametrize("name,ranks,extra", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("where", WHERE)
def test_kernels_and_sizes(where, name, ranks, extra, kernel):
    check_against_serial(where, name, ranks, extra, ["-steps", "5", "-width", "4", "-type", "stencil_1d", *kernel])


FAULT_GRAPHS = ["-steps", "5", "-width", "3", "-type", "no_comm", "-and", "-steps", "6", "-width", "4",
                "-type", "all_to_all", "-output", "64"]


@pytest.mark.parametrize("name,ranks,extra", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("where", WHERE)
def test_a_corrupted_output_fails_validation_on_the_gpu(where, name, ranks, extra):
    ready(where)
    got = run(name, [*extra, *FAULT_GRAPHS], ranks, env={"TASKBENCH_FAULT": "corrupt:1,2,1"}, where=where)
    assert got.returncode == 3, got.stderr
    line = [x for x in got.stderr.splitlines() if x.startswith("taskbench: ")][-1]
    assert line.startswith("taskbench: validation failed: graph 1, task (t=3, i="), line
    assert "the output of (t=2, i=1) is corrupt at byte 0 of" in line or "expected the output of (t=2, i=1)" in line
    assert line.endswith("(checked on the GPU)"), line
    assert "Total Tasks" not in got.stdout


@pytest.mark.parametrize("name,ranks,extra", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("where", WHERE)
def test_a_corrupted_output_of_the_last_row_fails_the_end_of_run_check(where, name, ranks, extra):
    """No task reads (5, 1) of graph 1: the end-of-run check (docs/spec.md §3) copies it back."""
    ready(where)
    got = run(name, [*extra, *FAULT_GRAPHS], ranks, env={"TASKBENCH_FAULT": "corrupt:1,5,1"}, where=where)
    assert got.returncode == 3, got.stderr
    line = [x for x in got.stderr.splitlines() if x.startswith("taskbench: ")][-1]
    assert line.startswith("taskbench: validation failed: graph 1, task (t=5, i=1): its output, which no task "
                           "reads, holds the output of"), line
    assert "Total Tasks" not in got.stdout


@pytest.mark.parametrize("name", ["cuda", "cuda_graph"])
def test_the_first_failed_check_stops_the_tasks_queued_after_it(name, tmp_path):
    """Columns 0, 2 and 3 of a no_comm graph never read the corrupted column 1: without the stop
    their 600 tasks would all run after (2, 1) failed. The stand-in logs every task that started
    its work (TASKBENCH_STANDIN_TASK_LOG); on a GPU the host also stops issuing (gpu::before_rows)."""
    ready(STANDIN)
    args = ["-steps", "200", "-width", "4", "-type", "no_comm"]
    log = tmp_path / "started"
    got = run(name, args, where=STANDIN, env={"TASKBENCH_STANDIN_TASK_LOG": str(log)})
    assert got.returncode == 0, got.stderr
    assert len(log.read_text().splitlines()) == 800  # the log sees every task of a clean run
    log.unlink()
    got = run(name, args, where=STANDIN, env={"TASKBENCH_STANDIN_TASK_LOG": str(log), "TASKBENCH_FAULT": "corrupt:0,1,1"})
    assert got.returncode == 3, got.stderr
    assert got.stderr.rstrip().endswith("(checked on the GPU)"), got.stderr
    started = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    assert (2, 1) in started and len(started) < 100, len(started)


@pytest.mark.parametrize("name,ranks,extra", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("where", WHERE)
def test_a_hung_task_never_finishes_and_a_killed_process_dies(where, name, ranks, extra):
    ready(where)
    if ranks is None:  # (a timeout kills mpirun alone: the harness's MPI timeouts are tested elsewhere)
        with pytest.raises(subprocess.TimeoutExpired):
            run(name, [*extra, *FAULT_GRAPHS], ranks, env={"TASKBENCH_FAULT": "hang:1,2,1"}, timeout=3, where=where)
    got = run(name, [*extra, *FAULT_GRAPHS], ranks, env={"TASKBENCH_FAULT": "kill:1,2,1"}, where=where)
    if ranks is None:
        assert got.returncode == -signal.SIGKILL, got.stderr
    else:
        assert got.returncode != 0 and "Total Tasks" not in got.stdout, got.stderr


@pytest.mark.parametrize("where", WHERE)
def test_cuda_graph_reports_its_build_apart(where):
    ready(where)
    got = run("cuda_graph", ["-steps", "40", "-width", "4", "-type", "stencil_1d", "-window", "3"], where=where)
    assert got.returncode == 0, got.stderr
    # Windows of 4 rows (3 rounded up to a multiple of the ring's 2 rows): 10 replays.
    line = next(x for x in got.stdout.splitlines() if x.startswith("Graph Build Time"))
    assert "windows of 4 rows, 10 replays" in line, line


@pytest.mark.parametrize("name", ["cuda", "cuda_graph"])
def test_the_stand_in_catches_a_system_that_skips_its_dependencies(name):
    """Without its waits on events (TASKBENCH_STANDIN_DROP_WAITS), a system's tasks run before
    their inputs are written, and the GPU validation says so: passing on the stand-in means the
    dependencies are there."""
    ready(STANDIN)
    for seed in ("1", "2", "3"):
        got = run(name, ["-steps", "20", "-width", "7", "-type", "stencil_1d"], where=STANDIN,
                  env={"TASKBENCH_STANDIN_DROP_WAITS": "1", "TASKBENCH_STANDIN_SEED": seed})
        assert got.returncode == 3, (seed, got.stderr)
        assert "validation failed" in got.stderr and got.stderr.rstrip().endswith("(checked on the GPU)")
