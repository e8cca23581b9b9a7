"""The fault matrix as data: what each injected fault is, how it is injected into a system
through the harness, and what the harness must have stored for it to count as caught.

tests/harness/test_fault_matrix.py and scripts/reliability_matrix.py (which writes
docs/reliability.md) both take their faults, injection and verdicts from here, so the table in
the docs is exactly what the tests check. It stands here, beside that script and outside the
package: no command of the harness uses it.

Every fault is the core's TASKBENCH_FAULT switch (docs/spec.md §3), so it fires inside the
system's own data path: in the worker thread or MPI rank that runs the task, never in a wrapper.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from taskbench.process import leftovers
from taskbench.registry import gpu, resolve

# A 4-wide tree of 4 rows. On the MPI systems' 2 ranks, rank 0 owns columns 0-1 and rank 1
# columns 2-3: the output of (1, 1) is consumed only by (2, 2) and (2, 3) on rank 1, so its
# corruption is seen after it crossed the wire; (2, 3) runs on rank 1, after row 1's messages.
GRAPH_FLAGS = ("-type", "tree", "-steps", "4", "-width", "4")
CORRUPTED_TASK = (1, 1)
FAILING_TASK = (2, 3)
FAILING_RANK = 1  # the rank owning column 3 of 4 on 2 ranks
MPI_RANKS = 2  # whatever the machine's default (one rank per core)
# The cases of an output that no task reads, caught by the end-of-run check of every last row
# (docs/spec.md §3): a stencil graph and a trivial one side by side, 4 rows each. On the MPI
# systems' 2 ranks, point 1 is rank 0's and point 2 rank 1's.
LAST_ROW_FLAGS = ("-type", "stencil_1d", "-steps", "4", "-width", "4", "-and", "-type", "trivial", "-steps", "4",
                  "-width", "4")

# The variable that marks every process of a matrix run (the harness passes its environment
# on), so that leftovers are found in /proc whichever parent they ended up with.
PROBE_VARIABLE = "TASKBENCH_FAULT_PROBE"
SETTLE_SECONDS = 2.0  # past the timeout, for killing the run and reading its last output
# The harness timeout of the hang case: what stops it. Most systems reach the hung task within
# 1 s (a run of GRAPH_FLAGS through the harness: 0.26 s for serial, 0.6 s for Open MPI's 2
# ranks, 1 s for mpi4py_futures). The engines that start for longer are stopped in their
# start-up: ray, ray_compiled and parsl (5 to 6 s) already were at 3 s, parsl_threads and
# dask_distributed (1.7 s) are now; test_parsl.py and test_ray_compiled.py stop a hang they
# reached, with longer timeouts, and what is tested here (the whole process tree gone when the
# harness returns) holds at any moment of a run.
HANG_TIMEOUT = 1.5
FAIL_TIMEOUT = 60.0  # the others must fail on their own, long before this


@dataclass(frozen=True)
class Fault:
    name: str
    spec: str  # the TASKBENCH_FAULT value
    timeout: float  # the harness's --timeout for this case
    what: str  # what the fault does, for the docs
    expected: str  # what the harness must store, for the docs
    judge: Callable[[object, dict], list[str]]  # (system, stored run) -> problems; [] = caught
    graph_flags: tuple[str, ...] = GRAPH_FLAGS  # the run's graphs


def _task_of_graph_0(t: int, i: int) -> str:
    return f"0,{t},{i}"


def _validation_failed(run: dict) -> list[str]:
    """What a run stored for a corrupt output must say, whoever detected it."""
    problems = []
    if run["status"] != "validation":
        problems.append(f"status {run['status']!r}, expected 'validation'")
    if run["exit_code"] != 3:
        problems.append(f"exit code {run['exit_code']}, expected 3")
    return problems


def _judge_corrupt(system, run: dict) -> list[str]:
    problems = _validation_failed(run)
    t, i = CORRUPTED_TASK
    prefix = f"taskbench: validation failed: graph 0, task (t={t + 1}, i="
    reason = run["reason"] or ""
    if not reason.startswith(prefix) or f"expected the output of (t={t}, i={i})" not in reason:
        problems.append(f"reason {reason!r} is not the validation message naming the consumer "
                        f"of ({t}, {i})")
    return problems


def _judge_unread(graph: int, t: int, i: int):
    """The verdict of a corrupt output that no task reads: the end-of-run check's line."""
    def judge(system, run: dict) -> list[str]:
        problems = _validation_failed(run)
        want = f"taskbench: validation failed: graph {graph}, task (t={t}, i={i}): its output, which no task reads"
        if not (run["reason"] or "").startswith(want):
            problems.append(f"reason {run['reason']!r} is not the end-of-run check of ({t}, {i})")
        return problems
    return judge


def _judge_hang(system, run: dict) -> list[str]:
    problems = []
    if run["status"] != "timeout":
        problems.append(f"status {run['status']!r}, expected 'timeout'")
    if run["reason"] != f"exceeded the {HANG_TIMEOUT:g} s timeout":
        problems.append(f"reason {run['reason']!r}")
    if not HANG_TIMEOUT <= (run["wall_seconds"] or 0) < HANG_TIMEOUT + SETTLE_SECONDS:
        problems.append(f"stopped after {run['wall_seconds']:.2f} s, not at the {HANG_TIMEOUT:g} s timeout")
    return problems


def _judge_kill(system, run: dict) -> list[str]:
    problems = []
    reason = run["reason"] or ""
    # An engine that reaps its own worker processes (registry key `killed_worker_reason`: Ray's
    # raylet, charmrun, Spark's Python daemon are their parents) tells the driver that a worker
    # died, not of which signal, and the driver fails with those words.
    reaped = system.killed_worker_reason
    if reaped:
        if run["status"] != "failed" or reaped not in reason:
            problems.append(f"status {run['status']!r}, reason {reason!r}: expected 'failed', naming the "
                            "worker process's death")
    elif run["status"] != "crashed":
        problems.append(f"status {run['status']!r}, expected 'crashed'")
    if system.is_mpi:
        want = f"rank {FAILING_RANK} killed by SIGKILL"
        if not reason.startswith(want):
            problems.append(f"reason {reason!r} does not start with {want!r}")
    elif not reaped and reason != "killed by SIGKILL" and \
            not reason.startswith("killed by SIGKILL: taskbench: worker process"):
        # A driver whose worker process was killed dies of the same signal, naming the worker.
        problems.append(f"reason {reason!r}, expected 'killed by SIGKILL'")
    if (run["wall_seconds"] or 0) >= FAIL_TIMEOUT:
        problems.append("it ran into the timeout instead of failing")
    return problems


FAULTS = [
    Fault("corrupt", "corrupt:" + _task_of_graph_0(*CORRUPTED_TASK), FAIL_TIMEOUT,
          f"task {CORRUPTED_TASK} writes a corrupt output",
          "`validation`, exit 3, the consumer's validation message as the reason", _judge_corrupt),
    Fault("hang", "hang:" + _task_of_graph_0(*FAILING_TASK), HANG_TIMEOUT,
          f"the process running task {FAILING_TASK} sleeps forever",
          f"`timeout` at the {HANG_TIMEOUT:g} s timeout", _judge_hang),
    Fault("kill", "kill:" + _task_of_graph_0(*FAILING_TASK), FAIL_TIMEOUT,
          f"the process running task {FAILING_TASK} (MPI: rank {FAILING_RANK}) SIGKILLs itself",
          f"`crashed`: `killed by SIGKILL`; MPI: `rank {FAILING_RANK} killed by SIGKILL`, "
          "well within the timeout", _judge_kill),
    Fault("corrupt_last", "corrupt:0,3,1", FAIL_TIMEOUT,
          "task (3, 1) of a stencil graph writes a corrupt output in its last row, which no task reads",
          "`validation`, exit 3, the end-of-run check's message naming (3, 1)", _judge_unread(0, 3, 1),
          LAST_ROW_FLAGS),
    Fault("corrupt_trivial", "corrupt:1,3,2", FAIL_TIMEOUT,
          "task (3, 2) of a trivial graph (graph 1: no task reads any output) writes a corrupt output",
          "`validation`, exit 3, the end-of-run check's message naming graph 1's (3, 2)",
          _judge_unread(1, 3, 2), LAST_ROW_FLAGS),
]
FAULTS_BY_NAME = {f.name: f for f in FAULTS}


@dataclass
class Verdict:
    system: str
    fault: str
    run: dict | None  # the stored run (None: the harness stored nothing)
    problems: list[str]
    leftovers: list[str]  # processes of the run still alive when the harness returned
    harness_exit: int | None = None

    @property
    def caught(self) -> bool:
        return self.run is not None and not self.problems and not self.leftovers

    def how(self) -> str:
        """What the harness stored: 'status: reason' (as in the store)."""
        if self.run is None:
            return "nothing stored"
        return f"{self.run['status']}: {self.run['reason']}" if self.run["reason"] else self.run["status"]


@contextlib.contextmanager
def _environment(changes: dict[str, str]):
    saved = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def on_the_standin(systems: list, layout) -> list:
    """The systems, each GPU entry that has no device here resolved again on the CUDA stand-in's
    builds (build/tests/gpu-standin, registry/gpu.py) where the build made them: what the
    harness does with a GPU system's failures is then tested on machines without a GPU too."""
    folder = layout.build_dir / "tests" / "gpu-standin" if layout.build_dir else None
    if folder is None or not folder.is_dir() or not gpu.cuda_device_problem():
        return systems
    out = []
    for system in systems:
        if system.processor == "gpu" and not system.available:
            with _environment({gpu.STANDIN_VARIABLE: str(folder)}):
                system = resolve(dataclasses.replace(system), layout)
        out.append(system)
    return out


def inject(system, fault: Fault, db: Path, build_dir: str | None = None) -> Verdict:
    """Runs `taskbench run SYSTEM` with the fault armed, in this process (the harness's own
    CLI entry point), and judges what it stored and what it left running. A system on the CUDA
    stand-in (on_the_standin) runs there."""
    from taskbench.cli import main  # the CLI pulls in everything; only needed here

    probe = leftovers.new_marker()
    campaign = f"fault-{system.name}-{fault.name}-{probe[:8]}"
    argv = ["--db", str(db), "-q"] + (["--build-dir", build_dir] if build_dir else [])
    argv += ["run", "--timeout", f"{fault.timeout:g}", "--campaign", campaign, system.name, *fault.graph_flags]
    if system.is_mpi:
        argv += ["--ranks", str(MPI_RANKS)]  # the layout the tasks above are chosen for, on any machine
    elif system.launcher == "smpirun":  # its ranks on the test platform's first node
        argv += ["--simulate", "small", "--ranks", str(MPI_RANKS)]
    switches = {"TASKBENCH_FAULT": fault.spec, PROBE_VARIABLE: probe}
    if getattr(system, "standin", False):
        switches[gpu.STANDIN_VARIABLE] = str(system.binary_path.parent)
    with _environment(switches):
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    # At once: the harness has returned, so every process of the run must be gone already.
    described = [leftovers.describe(pid) for pid in leftovers.processes_with(PROBE_VARIABLE, probe)]
    leftovers.kill_all(PROBE_VARIABLE, probe)  # never leave them to the next case
    run = stored_run(db, campaign)
    problems = fault.judge(system, run) if run else ["the harness stored no run"]
    if run and code != 3:
        problems.append(f"`taskbench run` exited {code}, expected 3 (runs failed, stored)")
    return Verdict(system.name, fault.name, run, problems, described, code)


def stored_run(db: Path, campaign: str) -> dict | None:
    con = sqlite3.connect(str(db), timeout=30)
    con.row_factory = sqlite3.Row
    try:
        row = con.execute("SELECT status, reason, exit_code, wall_seconds FROM runs WHERE campaign=?",
                          (campaign,)).fetchone()
        return dict(row) if row else None
    finally:
        con.close()
