"""Valid-configuration fuzz test of every built system: seeded random valid
lines (valid_lines.py: 1 to 3 graphs, every pattern and kernel, odd outputs and scratch sizes)
must be accepted by serial, and every system given a sample of them must exit 0 with serial's
totals and nothing on stderr. The flag fuzzer (test_fuzz_flags.py) mostly tests the parser; this
one tests execution.

TASKBENCH_VALID_SEED (default 1) and TASKBENCH_VALID_LINES (default 300; 100 in a sanitizer
build) pick the lines. Each system gets its own window of a seeded permutation of them, the
windows laid end to end, so that the systems together run every line; every window holds at
least two multi-graph lines. MPI systems run under mpirun with 1, 2 and 3 ranks in turn. A
system whose every run starts an interpreter or mpirun runs its lines a few at a time, joined by
-and (JOIN), and the engines that take seconds to start (ray, dask_distributed) their whole
window in one run. Spark and TensorFlow are left out (LARGE_ENGINES: a JVM or TensorFlow per
run; their own files test them). TASKBENCH_BUILD_DIR picks the build. The seed, the count and
per system the lines run and passed are printed at the end of the session."""
from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from flag_lines import KERNELS, PATTERNS
from line_cost import parse_accepted, row_widths
from systems import (BIN, LARGE_ENGINES, PROBE, ROOT, SLOW_TO_START, System, registry, serial_totals, totals,
                     unavailable)
from test_mpi import launcher as mpirun_of
from test_mpi import mpi_command
from valid_lines import ValidLines, graphs

sys.path.insert(0, str(ROOT / "python"))
from taskbench.process import leftovers  # noqa: E402
from taskbench.launch.loopback import can_isolate, wrap  # noqa: E402

SEED = int(os.environ.get("TASKBENCH_VALID_SEED", "1"))
MANIFEST = BIN.parent / "taskbench-build.json"
SANITIZED = MANIFEST.exists() and bool(json.loads(MANIFEST.read_text()).get("sanitize"))
# About 2.5 minutes on 2 shared cores in the release build, most of it in process starts.
COUNT = int(os.environ.get("TASKBENCH_VALID_LINES", "100" if SANITIZED else "300"))
TIMEOUT = 120  # seconds per run: a line takes milliseconds; ray starts for seconds
SERIAL = BIN / "serial"
SYSTEMS = [s for s in registry() if s.binary.name not in LARGE_ENGINES and s.name != "serial"]


@dataclass
class Tally:
    lines: int = 0
    runs: int = 0
    passed: int = 0
    skipped: str = ""
    ran: set = field(default_factory=set)  # indices of the lines run


TALLIES: dict[str, Tally] = {}


def dgemm_available() -> bool:
    return subprocess.run([SERIAL, "-kernel", "compute_dgemm", "-scratch", "24"], capture_output=True).returncode == 0


def draw() -> list[list[str]]:
    kernels = KERNELS if SERIAL.exists() and dgemm_available() else [k for k in KERNELS if k != "compute_dgemm"]
    maker = ValidLines(SEED, kernels)
    return [maker.line() for _ in range(COUNT)]


LINES = draw()


# Engines that start for seconds per run (Ray ~4 s, a Dask cluster ~1 s): one run of joined lines.
JOINED = ("ray", "ray_compiled", *SLOW_TO_START)
# Lines per system, as a share of the count: process starts dominate (mpirun 0.2-0.5 s, a Python
# engine 0.1-0.8 s, StarPU 0.15 s, the other C++ systems a few ms).
SHARE = {"native": 1 / 3, "mpi": 1 / 12, "python": 1 / 12, "joined": 1 / 40}
# Lines per run, joined by -and (0: the whole window in one run). One line a run where a start
# costs milliseconds; where it costs an interpreter or mpirun (mpi4py_futures: 1 s a run, 26 s
# for its 25 lines alone), four: every line still runs, and on every rank count, in 7 runs.
JOIN = {"native": 1, "mpi": 4, "python": 4, "joined": 0}


def kind(system: System) -> str:
    launcher = system.entry.get("launcher", "local")
    if launcher == "mpirun":
        return "mpi"
    if system.name in JOINED:
        return "joined"
    return "python" if system.entry.get("language") == "Python" else "native"


def windows() -> dict[str, list[int]]:
    """Each system's line indices: consecutive windows of one seeded permutation, so that the
    systems together cover every line; each topped up to two multi-graph lines."""
    order = random.Random(SEED).sample(range(COUNT), COUNT)
    start, chosen = 0, {}
    for system in SYSTEMS:
        k = min(COUNT, max(2, round(COUNT * SHARE[kind(system)])))
        picked = [order[(start + j) % COUNT] for j in range(k)]
        start += k
        rest = order[start % COUNT:] + order[:start % COUNT]
        extra = (i for i in rest if graphs(LINES[i]) > 1 and i not in picked)
        while sum(graphs(LINES[i]) > 1 for i in picked) < 2 and (i := next(extra, None)) is not None:
            picked.append(i)
        chosen[system.name] = picked
    return chosen


WINDOWS = windows()


@dataclass
class Outcome:
    command: list[str]
    code: int | None  # None: timed out
    stdout: str
    stderr: str


def run(argv: list[str], env: dict, marker: str) -> Outcome:
    """argv in a session of its own; on a timeout everything carrying the marker is killed (MPI
    ranks and Ray workers leave the session, not the environment)."""
    env = {k: v for k, v in env.items() if k != "TASKBENCH_FAULT"}
    # Open MPI refuses to run as root without these; harmless otherwise.
    env.update({PROBE: marker, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
        return Outcome(argv, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        leftovers.kill_all(PROBE, marker)
        out, err = proc.communicate()
        return Outcome(argv, None, out, err)


SUMMARY = ["Total Tasks", "Total Dependencies", "Total FLOPs", "Total Bytes"]


@pytest.fixture(scope="module")
def serial_runs() -> list[subprocess.CompletedProcess]:
    if not SERIAL.exists():
        pytest.skip(f"serial is not built in {BIN.parent}")
    return [subprocess.run([SERIAL, *args], capture_output=True, text=True, timeout=TIMEOUT) for args in LINES]


def serial_problem(args: list[str], got: subprocess.CompletedProcess) -> str | None:
    if got.returncode != 0 or got.stderr:
        return f"exit {got.returncode}, stderr {got.stderr.strip()!r}"
    found = totals(got.stdout)
    # Local/Nonlocal Dependencies are left out where -nodes does not divide every graph's width.
    if [line.rsplit(" ", 1)[0] for line in found if line.startswith("Total ")] != SUMMARY:
        return f"not the summary: {found}"
    # Not only self-consistent: the task count of every graph follows from its shape (docs/spec.md §1).
    want = sum(row_widths(g) for g in parse_accepted([a.encode() for a in args], {}, 4).graphs)
    if found[0] != f"Total Tasks {want}":
        return f"{found[0]}, but the graphs have {want} tasks"
    return None


@pytest.fixture(scope="module")
def reference(serial_runs) -> dict[int, list[str]]:
    """serial's totals of each line it ran right; test_serial_accepts_every_line names the others."""
    return {i: totals(got.stdout) for i, got in enumerate(serial_runs) if not serial_problem(LINES[i], got)}


def test_serial_accepts_every_line(serial_runs):
    problems = [f"{why}: {shlex.join(args)}" for args, got in zip(LINES, serial_runs)
                if (why := serial_problem(args, got))]
    assert not problems, f"{len(problems)} of {COUNT} valid lines failed on serial:\n" + "\n".join(problems[:10])


def help_list(name: str) -> set[str]:
    text = subprocess.run([SERIAL, "-h"], capture_output=True, text=True).stdout
    return set(re.search(rf"^\s+{name}: (.*)$", text, re.M).group(1).split(", "))


def test_lines_use_every_pattern_and_kernel():
    """What serial's -h lists must be drawn: a pattern or kernel added to the core without the
    generator knowing fails here."""
    if not SERIAL.exists():
        pytest.skip(f"serial is not built in {BIN.parent}")
    assert help_list("patterns") == set(PATTERNS)
    assert help_list("kernels") == set(KERNELS)
    if sum(map(graphs, LINES)) < len(KERNELS) + len(PATTERNS):
        pytest.skip(f"{COUNT} lines are too few to hold every pattern and kernel")

    def used(flag: str) -> set[str]:
        return {args[k + 1] for args in LINES for k in range(len(args)) if args[k] == flag}
    assert used("-type") == set(PATTERNS)
    assert used("-kernel") == set(KERNELS) - (set() if dgemm_available() else {"compute_dgemm"})


def require(system: System, tally: Tally) -> None:
    reason = unavailable(system)
    launcher = system.entry.get("launcher", "local")
    if not reason and launcher in ("loopback", "ray", "charmrun") and not can_isolate():
        reason = f"{system.name} runs in a network namespace: needs unshare and ip, as root"
    if not reason and launcher == "mpirun" and mpirun_of(system.entry["mpi"]) is None:
        reason = f"no mpirun for {system.entry['mpi']}"
    if not reason and launcher not in ("local", "mpirun", "loopback", "ray", "dask", "parsl_pools", "charmrun"):
        reason = f"{system.name} needs a {launcher} launcher"
    if reason:
        tally.skipped = reason
        pytest.skip(reason)


def command(system: System, args: list[str], ranks: int, workers: int) -> list[str]:
    binary, *system_args = system.command([])
    if flag := system.entry.get("threads_flag"):
        system_args += [flag, str(workers)]
    launcher = system.entry.get("launcher", "local")
    if launcher == "mpirun":
        return mpi_command(system.entry["mpi"], ranks, binary, [*system_args, *args, "-expect-ranks", str(ranks)])
    argv = [binary, *system_args, *args]
    return wrap(argv) if launcher in ("loopback", "ray", "charmrun") else argv


def problem(got: Outcome, want: list[str], system: str) -> str | None:
    if got.code is None:
        return f"no answer in {TIMEOUT} s"
    if got.code != 0:
        return f"exit {got.code}"
    if totals(got.stdout) != want:
        return f"totals {totals(got.stdout)}, serial's {want}"
    return f"stderr not empty: {got.stderr.splitlines()[:3]}" if got.stderr else None


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_system_matches_serial(system, reference, probe):
    tally = TALLIES.setdefault(system.name, Tally())
    require(system, tally)
    picked = [i for i in WINDOWS[system.name] if i in reference]  # the others fail on serial already
    rng = random.Random(f"{SEED}:{system.name}")
    mpi = kind(system) == "mpi"
    size = JOIN[kind(system)] or max(1, len(picked))
    runs = []
    for first in range(0, len(picked), size):
        lines = picked[first:first + size]
        if len(lines) == 1:
            runs.append((lines, LINES[lines[0]], reference[lines[0]]))
        else:
            joined = [a for n, i in enumerate(lines) for a in (["-and"] if n else []) + LINES[i]]
            runs.append((lines, joined, serial_totals(joined)))
    failures = []
    for n, (lines, args, want) in enumerate(runs):
        ranks = 1 + n % 3 if mpi else 0
        # Threads per rank as the registry says under mpirun; 1 to 3 threads (or PEs) otherwise.
        workers = system.entry.get("threads_per_rank", 1) if mpi else rng.choice([1, 2, 2, 3])
        got = run(command(system, args, ranks, workers), system.env(), probe)
        tally.runs += 1
        tally.lines += len(lines)
        tally.ran.update(lines)
        why = problem(got, want, system.name)
        if why:
            tail = got.stderr.strip().splitlines()[-3:]
            failures.append(f"{why}: {shlex.join(got.command)}\n      stderr: {tail}")
        else:
            tally.passed += len(lines)
    assert not failures, f"{system.name}: {len(failures)} of {len(runs)} runs failed:\n" + "\n".join(failures[:8])


@pytest.fixture(scope="module", autouse=True)
def print_tallies(request):
    """The seed, the count and each system's lines, past pytest's output capture."""
    yield
    if not TALLIES:
        return
    ran = set().union(*(t.ran for t in TALLIES.values()))
    lines = ["", f"valid-configuration fuzz (seed {SEED}, {COUNT} lines drawn, build {BIN.parent.name}): "
             f"{len(ran)} lines ran on at least one system"]
    for name, t in TALLIES.items():
        if t.skipped:
            lines.append(f"  {name}: skipped ({t.skipped})")
        else:
            lines.append(f"  {name}: {t.lines} lines in {t.runs} runs, {t.passed} passed")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n".join(lines))
