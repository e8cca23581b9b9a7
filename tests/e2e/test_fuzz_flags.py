"""Flag fuzz test of every built system ("bad input, everywhere"): seeded random command
lines (flag_lines.py) run against each system binary of the registry. Every run must exit with
0 or 2, never anything else, and within the timeout:
  - 2: stderr is one or two lines of printable text, stdout is empty;
  - 0 with -h: the usage text; 0 otherwise: the summary, whose Total Tasks is the graphs' exact
    task count, and the -json report and -trace file when asked for.
Each line is first run with -h appended, which parses it and exits before running anything (a
check of its own); a line the core accepts runs only if its estimated work is small
(line_cost.py), otherwise another line is drawn, so a timeout means a hang and not a valid but
enormous graph (those are covered by core/tests/fuzz_flags.cc, and here by lines that are
rejected after their huge values).

MPI systems run a few lines as singletons and one with mpirun -np 2 (each launch costs ~0.3 s);
the engines that start for seconds (SLOW_TO_START: Parsl's executor, 4.7 s a run) a quarter of
the lines: the parser they share is fuzzed on every other system; their own flags here.
TASKBENCH_FUZZ_SEED (default 1), TASKBENCH_FUZZ_LINES (per local system, default 40) and
TASKBENCH_FUZZ_MPI_LINES (default 6) make longer runs; TASKBENCH_BUILD_DIR picks the build.
Totals per system are printed at the end of the session."""
from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from flag_lines import LineMaker, shown
from line_cost import Run, cheap, parse_accepted, row_widths
from systems import BIN, LARGE_ENGINES, SLOW_TO_START, System, registry, unavailable
from test_smpi import SMALL as SMALL_PLATFORM, SMPIRUN

from taskbench.launch.smpirun import QUIET as SMPI_QUIET, smpirun_problem

SEED = int(os.environ.get("TASKBENCH_FUZZ_SEED", "1"))
LINES = int(os.environ.get("TASKBENCH_FUZZ_LINES", "40"))
MPI_LINES = int(os.environ.get("TASKBENCH_FUZZ_MPI_LINES", "6"))
TIMEOUT = 60  # seconds: a cheap line takes milliseconds, even under ASan on a loaded machine
WORKERS = max(1, min(2, os.cpu_count() or 1))
# The large engines start a JVM or import TensorFlow per run: their files test their flags.
SYSTEMS = [s for s in registry() if s.binary.name not in LARGE_ENGINES]  # pyspark_standalone too
TOTALS: dict[str, "Totals"] = {}


@dataclass
class Totals:
    lines: int = 0      # lines drawn
    runs: int = 0       # launches (a line runs with -h appended, then alone)
    exit0: int = 0
    exit2: int = 0
    crashes: int = 0    # any other exit status, or a signal
    hangs: int = 0
    expensive: int = 0  # valid lines only parsed (-h), too expensive to run
    completed: int = 0  # lines that ran their graphs to the summary (exit 0 without -h)

    def line(self) -> str:
        return (f"{self.lines} lines, {self.runs} runs: {self.exit0} exit 0, {self.exit2} exit 2, "
                f"{self.crashes} crashes, {self.hangs} hangs; {self.completed} lines ran their graphs, "
                f"{self.expensive} valid lines too expensive to run (parsed only)")


@dataclass
class Result:
    args: list[bytes]
    code: int | None  # None: timed out
    stdout: bytes
    stderr: bytes


class Launcher:
    """How one system is started: directly, or under mpirun with two ranks."""

    def __init__(self, system: System, directory: Path, ranks: int = 0):
        self.system, self.directory, self.ranks = system, directory, ranks
        self.env = {k: v for k, v in system.env().items() if k != "TASKBENCH_FAULT"}
        # Open MPI refuses to run as root without these; harmless otherwise.
        self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        self.simulated = system.entry.get("launcher") == "smpirun"
        if self.simulated and ranks:  # smpirun's copies of the program go to the test's folder
            self.env["TMPDIR"] = str(directory)
            (directory / "hosts").write_text("node-0\n" * ranks)

    def command(self, args: list[bytes]) -> list:
        # Absolute: the runs start in the test's directory, TASKBENCH_BUILD_DIR may be relative.
        binary, *system_args = self.system.command([])
        binary = str(Path(binary).resolve())
        if not self.ranks:
            return [binary, *system_args, *args]
        if self.simulated:  # on the test platform `small`, one node (tests/e2e/test_smpi.py)
            return [str(SMPIRUN), *SMPI_QUIET, "-platform", str(SMALL_PLATFORM), "-hostfile",
                    str(self.directory / "hosts"), "-np", str(self.ranks), binary, *system_args, *args,
                    b"-expect-ranks", str(self.ranks)]
        flavor = self.system.entry.get("mpi")
        if flavor == "openmpi":
            mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun", path="/usr/lib64/openmpi/bin")
            prefix = [mpirun, "--oversubscribe"]
        else:
            prefix = [shutil.which("mpirun.mpich") or shutil.which("mpiexec.hydra")]
        if prefix[0] is None:
            pytest.skip(f"no mpirun for {flavor}")
        return [*prefix, "-np", str(self.ranks), binary, *system_args, *args, b"-expect-ranks", str(self.ranks)]

    def __call__(self, args: list[bytes]) -> Result:
        # A session of its own, so that a hang is killed with all its children (mpirun's ranks).
        proc = subprocess.Popen(self.command(args), cwd=self.directory, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
            if self.simulated and self.ranks:  # smpirun's own last line, not the program's
                out = re.sub(rb"Execution failed with code \d+\.\n$", b"", out)
            return Result(args, proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return Result(args, None, out, err)


def system_flags(launch: Launcher) -> dict[str, bool]:
    """The system's own flags from its -h, and whether each takes a value."""
    result = launch([b"-h"])
    assert result.code == 0, result.stderr
    lines = result.stdout.decode().split("System flags:\n")
    flags = {}
    for line in (lines[1].splitlines() if len(lines) > 1 else []):
        left = line[:24].split()
        if left and left[0].startswith("-"):
            flags[left[0]] = len(left) > 1
    return flags


def default_width(launch: Launcher) -> int:
    """-width's default, 4 on every system (docs/spec.md §4), checked with a one-step run."""
    result = launch([b"-steps", b"1"])
    assert result.code == 0, result.stderr
    width = int(next(line for line in result.stdout.decode().splitlines() if line.startswith("Total Tasks")).split()[2])
    assert width == 4, f"{width} tasks in a one-step graph without -width"
    return width


def printable(text: bytes) -> bool:
    return all(32 <= c < 127 for c in text)


def problem(r: Result, expect_help: bool, run: Run | None = None) -> str | None:
    """What is wrong with one run's outcome, or None. `run` is the parsed line when it ran."""
    if r.code is None:
        return "hang"
    if r.code not in (0, 2):
        return f"exit status {r.code}"
    if r.code == 2:
        lines = r.stderr.split(b"\n")
        if r.stdout:
            return "exit 2 with output on stdout"
        if not (r.stderr.endswith(b"\n") and 1 <= r.stderr.count(b"\n") <= 2) or not all(map(printable, lines)):
            return "exit 2 without one or two lines of printable text on stderr"
        return None
    text = r.stdout.decode(errors="replace")
    if expect_help:
        return None if "Usage:" in text and "-steps" in text else "-h without the usage text"
    tasks = [line for line in text.splitlines() if line.startswith("Total Tasks ")]
    if not tasks or "Total FLOPs" not in text or "Elapsed Time" not in text:
        return "exit 0 without the summary lines"
    want = sum(row_widths(g) for g in run.graphs)
    if tasks[0] != f"Total Tasks {want}":
        return f"{tasks[0]}, expected {want} tasks"
    return None


def check_reports(r: Result, run: Run, directory: Path) -> str | None:
    """The -json report and -trace file of a successful run exist and are JSON."""
    def path(flag: bytes) -> Path | None:
        given = [r.args[k + 1] for k in range(len(r.args) - 1) if r.args[k] == flag]
        return directory / os.fsdecode(given[-1]) if given else None
    report, trace = path(b"-json"), path(b"-trace")
    try:
        if report and json.loads(report.read_text())["totals"]["tasks"] != sum(row_widths(g) for g in run.graphs):
            return "the -json report disagrees with Total Tasks"
        if trace and "traceEvents" not in json.loads(trace.read_text()):
            return "the -trace file has no traceEvents"
    except (OSError, ValueError, KeyError) as e:
        return f"unreadable -json/-trace output: {e}"
    return None


class Fuzzer:
    def __init__(self, launch: Launcher, flags: dict[str, bool], width: int, totals: Totals):
        self.launch, self.flags, self.width, self.totals = launch, flags, width, totals
        self.failures: list[str] = []

    def record(self, r: Result, why: str | None):
        self.totals.runs += 1
        if r.code is None:
            self.totals.hangs += 1
        elif r.code == 0:
            self.totals.exit0 += 1
        elif r.code == 2:
            self.totals.exit2 += 1
        else:
            self.totals.crashes += 1
        if why:
            tail = r.stderr.decode(errors="replace").strip().splitlines()[-3:]
            self.failures.append(f"{why}: {shown(r.args)}\n      stderr: {tail}")

    def line(self, args: list[bytes]) -> str:
        """Checks one line: "rejected" by the parser, "ran" (its exit status was right, 0 or 2),
        "ran ok" (exit 0, no -h), or "expensive" (valid, too expensive to run: only parsed)."""
        parsed = self.launch([*args, b"-h"])  # parses the line, runs nothing
        self.record(parsed, problem(parsed, expect_help=True))
        if parsed.code == 2:  # rejected while parsing: alone it must be rejected the same way
            alone = self.launch(args)
            same = alone.code != 2 or alone.stderr.split(b"\n")[0] == parsed.stderr.split(b"\n")[0]
            self.record(alone, problem(alone, False) or (None if same else "a different message than with -h"))
        if parsed.code != 0:
            return "rejected"
        run = parse_accepted(args, self.flags, self.width)
        if not cheap(run):
            return "expensive"
        return self.run(args, run)

    def run(self, args: list[bytes], run: Run) -> str:
        r = self.launch(args)
        why = problem(r, run.help, run)
        if not why and r.code == 0 and not run.help:
            why = check_reports(r, run, self.launch.directory)
        self.record(r, why)
        if r.code == 0 and not run.help:
            self.totals.completed += 1
            return "ran ok"
        return "ran"

    def lines(self, maker: LineMaker, count: int) -> list[list[bytes]]:
        """Draws lines until `count` of them ran or were rejected (expensive ones are redrawn);
        returns those that ran to exit 0."""
        done, ok = 0, []
        with ThreadPoolExecutor(WORKERS) as pool:
            for _ in range(10):  # rounds; each draws what is still missing
                batch = [maker.line() for _ in range(count - done)]
                if not batch:
                    break
                self.totals.lines += len(batch)
                for args, outcome in zip(batch, pool.map(self.line, batch)):
                    self.totals.expensive += outcome == "expensive"
                    done += outcome != "expensive"
                    if outcome == "ran ok":
                        ok.append(args)
        return ok


def require_built(system: System):
    if reason := unavailable(system):
        pytest.skip(reason)
    if system.entry.get("launcher") == "smpirun":  # started both ways below
        pytest.skip(f"{system.name} runs only under smpirun: test_simulated_builds_started_both_ways")


SIMULATED = [s for s in SYSTEMS if s.entry.get("launcher") == "smpirun"]


class ShellWords:
    """Lines whose every word survives smpirun, a shell script that drops empty words and splits
    words at blanks before the program sees them."""

    def __init__(self, maker: LineMaker):
        self.maker = maker

    def line(self) -> list[bytes]:
        while True:
            line = self.maker.line()
            if all(word and not re.search(rb"\s", word) for word in line):
                return line


@pytest.mark.parametrize("system", SIMULATED, ids=lambda s: s.name)
def test_simulated_builds_started_both_ways(system, tmp_path):
    """A simulated build started by hand, as a user who lists build/bin would, says in one line
    how it runs (smpirun loads it), exit 2, whatever its flags (it crashed before: exit 139);
    under smpirun with two simulated ranks, its flags are fuzzed as every system's are."""
    if reason := unavailable(system):
        pytest.skip(reason)
    if problem := smpirun_problem(SMPIRUN):
        pytest.skip(problem)
    alone = Launcher(system, tmp_path)
    maker = LineMaker(SEED * 1_000_003 + sum(system.name.encode()), {}, tmp_path)
    for args in [[b"-h"], [b"-bogus"], *(maker.line() for _ in range(20))]:
        r = alone(args)
        lines = r.stderr.decode(errors="replace").splitlines()
        assert (r.code, r.stdout, len(lines)) == (2, b"", 1), (args, r)
        assert lines[0].startswith(f"{system.name}: a simulated build") and "smpirun" in lines[0], lines
    simulated = Launcher(system, tmp_path, ranks=2)
    flags, width = system_flags(simulated), default_width(simulated)
    totals = TOTALS.setdefault(system.name, Totals())
    fuzzer = Fuzzer(simulated, flags, width, totals)
    fuzzer.lines(ShellWords(LineMaker(SEED * 1_000_003 + sum(system.name.encode()), flags, tmp_path)), MPI_LINES)
    assert not fuzzer.failures, f"{system.name}: {len(fuzzer.failures)} failures:\n" + "\n".join(fuzzer.failures[:10])


@pytest.fixture(scope="module", autouse=True)
def print_totals(request):
    """Prints the totals once all systems ran, past pytest's output capture."""
    yield
    if not TOTALS:
        return
    everything = Totals()
    lines = ["", f"flag fuzz totals (seed {SEED}, build {BIN.parent.name}):"]
    for name, t in TOTALS.items():
        lines.append(f"  {name}: {t.line()}")
        for key in vars(everything):
            setattr(everything, key, getattr(everything, key) + getattr(t, key))
    lines.append(f"  all systems: {everything.line()}")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n".join(lines))


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_random_flag_lines(system, tmp_path):
    require_built(system)
    mpi = system.entry.get("launcher", "local") == "mpirun"
    if system.entry.get("launcher", "local") not in ("local", "mpirun", "parsl_pools"):
        pytest.skip(f"{system.name} needs a {system.entry['launcher']} launcher")
    launch = Launcher(system, tmp_path)
    flags, width = system_flags(launch), default_width(launch)
    totals = TOTALS.setdefault(system.name, Totals())
    fuzzer = Fuzzer(launch, flags, width, totals)
    # Each system its own lines, from the seed and its name (a fixed hash: str hashes vary per run).
    maker = LineMaker(SEED * 1_000_003 + sum(system.name.encode()), flags, tmp_path)
    count = MPI_LINES if mpi else LINES // 4 if system.name in SLOW_TO_START else LINES
    ran_ok = fuzzer.lines(maker, max(1, count))
    if mpi:  # one line through mpirun with two ranks: the first cheap one that ran fine alone, or
        # a plain graph (the estimate grows with the cores' threads: on many cores, a short one)
        drawn = itertools.chain(ran_ok, (maker.coherent_graph() for _ in range(1000)))
        line, run = next(((line, run) for line in drawn
                          if cheap(run := parse_accepted([*line, b"-expect-ranks", b"2"], flags, width))),
                         (None, None))
        assert line is not None, f"{system.name}: no cheap line in 1000 coherent graphs"
        totals.lines += 1
        two_ranks = Fuzzer(Launcher(system, tmp_path, ranks=2), flags, width, totals)
        two_ranks.run(line, run)
        fuzzer.failures += two_ranks.failures
    assert not fuzzer.failures, f"{system.name}: {len(fuzzer.failures)} failures:\n" + "\n".join(fuzzer.failures[:10])


# Lines the core must reject before allocating or computing anything: graphs beyond this
# machine's memory (e.g. 10^12 points of 4 GiB outputs), totals beyond 64 bits, files that
# cannot be written.
# Two graphs that each take 60% of this machine's memory (256 bytes per point: two outputs of
# one 128-byte stride) fit alone, not together.
HALF_MEMORY_WIDTH = str(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * 6 // 10 // 256).encode()
UP_FRONT = {
    "outputs_beyond_memory": ([b"-width", b"1000000000000", b"-output", b"4294967296"], b"-width: "),
    "scratch_beyond_memory": ([b"-width", b"1000", b"-scratch", b"1099511627776"], b"-scratch: "),
    "second_graph_beyond_memory": ([b"-width", HALF_MEMORY_WIDTH, b"-and", b"-width", HALF_MEMORY_WIDTH], b"-width: "),
    "tasks_beyond_64_bits": ([b"-steps", b"1152921504606846976", b"-width", b"1152921504606846976"], b"-width: "),
    "flops_beyond_64_bits": ([b"-kernel", b"compute_bound", b"-iter", b"1152921504606846976"], b"-iter: "),
    "report_in_missing_directory": ([b"-json", b"missing/r.json"], b"-json: "),
    "report_is_a_directory": ([b"-json", b"."], b"-json: "),
    "trace_without_name": ([b"-trace", b""], b"-trace: "),
    "too_many_threads": ([b"-worker", b"100000"], b"-worker: "),
    "native_home_beyond_1": ([b"-home", b"2"], b"-home: "),  # once printed the configuration first
}


@pytest.mark.parametrize("case", UP_FRONT)
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_rejected_up_front(system, case, tmp_path):
    require_built(system)
    args, start = UP_FRONT[case]
    flag = args[0].decode()
    if flag in ("-worker", "-home") and flag not in system_flags(Launcher(system, tmp_path)):
        pytest.skip(f"{system.name} has no {flag}")
    r = Launcher(system, tmp_path)(args)
    assert r.code == 2 and problem(r, False) is None, (r.code, r.stdout[-300:], r.stderr[-600:])
    assert r.stderr.split(b": ", 1)[1].startswith(start), r.stderr  # after the "taskbench: " prefix
