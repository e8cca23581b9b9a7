"""The Python side of a system: App mirrors the C++ taskbench::App (core/include/taskbench/app.h).

    app = App([Flag("-worker", "N", "threads", 1)])
    app.display()
    start = wall_time()
    ... run every task of app.graphs, each through run_task or Graph.execute ...
    app.report(wall_time() - start)

Flags, help, graph checks, validation, the summary lines, -json and the exit statuses are the
core's (taskbench._core), so a Python system behaves like a C++ one.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from taskbench import _core

Graph = _core.Graph
wall_time = _core.wall_time
available_cores = _core.available_cores

# The parser's ceiling for thread and process counts (taskbench::kMaxWorkerThreads).
MAX_WORKERS = 4096
# The core's exit status for a failed validation (docs/spec.md §3).
VALIDATION_EXIT = 3
_HOST = socket.gethostname()  # where a cluster placed this process (run_task_on_host)
# Exit status of a system whose engine is not installed (the harness's "environment" status).
EXIT_MISSING_ENGINE = 4


@dataclass(frozen=True)
class Flag:
    """A flag the system declares to the core's parser; value_name "" makes it a switch, text
    one whose value is any string (App.text_flag), such as an address."""

    name: str
    value_name: str
    help: str
    min_value: int = 0
    max_value: int = 1 << 60
    text: bool = False

    def spec(self) -> tuple:
        return (self.name, self.value_name, self.help, self.min_value, self.max_value, self.text)


class App:
    def __init__(self, flags: list[Flag] | tuple = (), version: str = "", argv: list[str] | None = None):
        argv = list(sys.argv if argv is None else argv)
        # The system's name is its launcher's (build/bin/NAME), as a C++ system's is its binary's.
        self.name = Path(argv[0]).name if argv else "python"
        # Bytes, as the process got them: sys.argv holds undecodable bytes as surrogates,
        # which os.fsencode turns back.
        self._app = _core.App([os.fsencode(a) for a in argv], self.name, [f.spec() for f in flags],
                              version)
        self.graphs: list[Graph] = list(self._app.graphs)

    def flag(self, name: str, default: int) -> int:
        return self._app.flag(name, default)

    def text_flag(self, name: str, default: str = "") -> str:
        return self._app.text_flag(name, default)

    @property
    def verbosity(self) -> int:
        return self._app.verbosity

    def display(self) -> None:
        self._app.display()

    def set_parallelism(self, ranks: int, threads_per_rank: int) -> None:
        self._app.set_parallelism(ranks, threads_per_rank)

    def add_report_json(self, key: str, json_value: str) -> None:
        self._app.add_report_json(key, json_value)

    def report(self, elapsed_seconds: float, executed_per_graph: list[int] | None = None,
               last_row_checked_per_graph: list[int] | None = None) -> None:
        """Checks every task ran once and every output of each graph's last timestep was
        checked once (Graph.check_unread_output; each count made in this process, or given per
        graph, gathered from worker processes) and prints the summary; exits 3 when a count is
        off."""
        sys.stdout.flush()
        self._app.report(elapsed_seconds, executed_per_graph, last_row_checked_per_graph)


def max_timesteps(graphs: list[Graph]) -> int:
    return max(g.timesteps for g in graphs)


def rows(graph: Graph, t: int) -> range:
    """The points of row t."""
    offset = graph.offset(t)
    return range(offset, offset + graph.width(t))


def run_task(graph: Graph, t: int, i: int, *inputs) -> bytearray:
    """Runs task (t, i) on its inputs (buffers, in graph.dependencies(t, i) order) and returns
    its new output. Module-level, so that worker processes unpickle it by reference."""
    output = bytearray(graph.output_bytes)
    graph.execute(t, i, output, inputs)
    return output


def run_task_in_worker(graph: Graph, t: int, i: int, *inputs) -> tuple[bytearray, tuple]:
    """run_task in a worker process that runs one task at a time: also returns what the core
    recorded for it there (a note: pid, tasks per graph index, -trace events), which the
    driver's Tally adds up, as a distributed C++ system gathers its ranks' counts."""
    output = run_task(graph, t, i, *inputs)
    return output, (os.getpid(), *_core.take_note(graph.index + 1))


def run_task_on_host(graph: Graph, t: int, i: int, *inputs) -> tuple[bytearray, tuple]:
    """run_task_in_worker, its note paired with the host it ran on: (output, (note, host)), for
    a driver whose workers may be on other hosts (Tally.add's host)."""
    output, note = run_task_in_worker(graph, t, i, *inputs)
    return output, (note, _HOST)


def worker_setup(tracing: bool = False) -> None:
    """The initializer of a worker process: TASKBENCH_FAULT from its environment, and whether
    the driver's run records -trace events."""
    _core.worker_setup(tracing)


class Tally:
    """The driver's sum of its worker processes' notes, for App.report."""

    def __init__(self, graphs: int):
        self.executed = [0] * graphs
        self.last_row_checked = [0] * graphs
        self.hosts: dict[str, dict[str, int]] = {}  # host -> {"workers": N, "tasks": N}
        self._pids: dict[str, set[int]] = {}  # host -> its workers' pids

    def add(self, note: tuple, host: str | None = None) -> None:
        """One worker's note, or one task's (a worker sends many); `host`: the host it ran on,
        counted in hosts (the JSON report's "hosts": the proof that a run crossed hosts, and how
        its work was spread), its workers told apart by pid."""
        pid, counts, checked, events = note
        if host is not None:
            tally = self.hosts.setdefault(host, {"workers": 0, "tasks": 0})
            pids = self._pids.setdefault(host, set())
            pids.add(pid)
            tally["workers"] = len(pids)
            tally["tasks"] += sum(counts)
        for index, count in enumerate(counts):
            self.executed[index] += count
        for index, count in enumerate(checked):
            self.last_row_checked[index] += count
        if events:
            _core.record_trace(f"pid {pid}", events)


def _worker_identity() -> tuple[int, int]:
    time.sleep(0.02)  # long enough that the pool hands the next one to another worker
    return os.getpid(), threading.get_ident()


def warm_up(pool, workers: int, rounds: int = 20) -> None:
    """Starts a pool's workers before the timed region (pools start them on demand)."""
    seen: set = set()
    for _ in range(rounds):
        seen.update(f.result() for f in [pool.submit(_worker_identity) for _ in range(2 * workers)])
        if len(seen) >= workers:
            return


def end_after_failed_workers(exit_codes: dict, message: str) -> None:
    """Ends the driver once worker processes died (exit_codes: pid -> code, negative for a
    signal). A worker that failed validation printed the line that says why, which stays last:
    the driver exits 3 too. A worker killed by a signal: the driver names it and dies of the
    same signal, so the harness reports the run as the kill it was. Otherwise: the message."""
    codes = list(exit_codes.values())
    if VALIDATION_EXIT in codes:
        sys.exit(VALIDATION_EXIT)
    # The pool sends SIGTERM to the survivors once one died: the first death is another signal.
    signalled = sorted(((pid, code) for pid, code in exit_codes.items() if code is not None and code < 0),
                       key=lambda pc: -pc[1] == signal.SIGTERM)
    for pid, code in signalled[:1]:
        name = signal.Signals(-code).name
        sys.stderr.write(f"taskbench: worker process {pid} was killed by {name}\n")
        sys.stderr.flush()
        if -code not in (signal.SIGKILL, signal.SIGSTOP):  # the two that have no handler
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.stderr.write(f"taskbench: {message}\n")
    sys.exit(1)


def missing_engine(package: str, extra: str) -> None:
    """The one line and the exit status of a system whose engine is not installed."""
    sys.stderr.write(f"taskbench: {package} is not installed for {sys.executable}: "
                     f"pip install 'taskbench[{extra}]' (or scripts/install-deps.sh)\n")
    sys.exit(EXIT_MISSING_ENGINE)


def engine_version(module: str) -> str:
    """"MODULE VERSION", read from the installed distribution without importing the module (App
    needs it before the engine is imported, see import_engine); MODULE alone if not installed."""
    # Most engines' distribution has the module's name; some do not (tensorflow-cpu).
    for distribution in [module, *importlib.metadata.packages_distributions().get(module, [])]:
        try:
            return f"{module} {importlib.metadata.version(distribution)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return module


def import_engine(module: str, extra: str, app: App, quiet_env: dict[str, str] | None = None):
    """Imports a system's engine once its flags are parsed, and returns its top-level package.

    After the parse, so that a bad flag (or -h) never loads the engine: whatever the engine
    prints as it loads, the core's one line is then all there is on stderr. Without -v, the
    engine's own log settings in `quiet_env` replace the user's first, so its start-up notices
    stay off stderr too; -v leaves the environment, and the engine, as they are."""
    if app.verbosity == 0:
        os.environ.update(quiet_env or {})
    try:
        importlib.import_module(module)
    except ImportError:
        missing_engine(module.split(".")[0], extra)
    return sys.modules[module.split(".")[0]]
