"""Nothing a run starts listens beyond loopback: a real `taskbench run` of
each engine the harness launches servers for, whose processes' listening sockets are polled
throughout the run; any bound to an address other than loopback, in our network namespace or
in one with more than loopback, fails the test. A namespace whose only interface is lo (the
loopback launcher's, and mpirun's) reaches no network, so whatever listens there passes. Each
engine must be seen listening at least once, so that the test cannot pass by looking at
nothing."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_helpers import REPO
from listening_sockets import descendants, listeners
from taskbench.process import leftovers
from taskbench.launch import LaunchOptions, command
from taskbench.launch.loopback import can_isolate, wrap
from taskbench.registry import Registry, System
from taskbench.registry.locations import find_layout

PROBE = "TASKBENCH_TEST_LISTENING_PROBE"
POLL_SECONDS = 0.2  # a JVM has hundreds of descriptors to look through
DEADLINE_SECONDS = 240  # a Spark cluster's two JVMs and a driver's on a loaded 2-core machine
SHORT = ["-width", "2", "-kernel", "busy_wait", "-iter", "100000"]  # about 0.2 ms a task


@dataclasses.dataclass
class Engine:
    system: str
    harness_options: list[str]
    steps: int  # enough for a second or two of run once the engine is up
    isolated: bool = False  # kept off the network by a namespace of its own (needs root)
    large: bool = False  # installed by scripts/install-large-engines.sh


ENGINES = [
    Engine("dask_distributed", ["--workers", "2"], 300),
    Engine("pyspark_standalone", ["--workers", "2"], 4, large=True),
    Engine("ray", [], 300, isolated=True),
    Engine("charm4py", [], 2000, isolated=True),
    Engine("mpi_p2p", ["--ranks", "2"], 5000, isolated=True),
    Engine("mpi_p2p_mpich", ["--ranks", "2"], 5000, isolated=True),
]


def require(engine: Engine) -> None:
    system = Registry(find_layout()).get(engine.system)
    reason = "" if system.available else f"{engine.system} is not available: {system.reason}"
    if not reason and engine.large and not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        reason = "Java is not installed (scripts/install-large-engines.sh)"
    if reason and engine.large and os.environ.get("TASKBENCH_REQUIRE_LARGE_ENGINES") == "1":
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)
    if engine.isolated and not can_isolate():
        pytest.skip(f"{engine.system} stays off the network only in a namespace of its own: needs root")


def watch_run(engine: Engine, tmp_path) -> tuple[int, str, set]:
    """Runs the engine through the harness and polls its processes' listening sockets until
    the run ends; returns (exit status, stderr, every listener seen)."""
    marker = leftovers.new_marker()
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), **{PROBE: marker})
    argv = [sys.executable, "-m", "taskbench", "--db", str(tmp_path / "tb.db"), "-q", "run",
            "--timeout", str(DEADLINE_SECONDS), *engine.harness_options, engine.system,
            "-steps", str(engine.steps), *SHORT]
    stderr_path = tmp_path / "stderr"
    seen = set()
    with open(stderr_path, "w") as stderr:
        harness = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while harness.poll() is None and time.monotonic() < deadline:
            # The marker finds any process that left the tree (a daemon reparented to init).
            for pid in descendants(harness.pid) | set(leftovers.processes_with(PROBE, marker)):
                seen.update(listeners(pid))
            time.sleep(POLL_SECONDS)
    finally:
        if harness.poll() is None:
            os.killpg(harness.pid, signal.SIGKILL)
        harness.wait()
        leftovers.kill_all(PROBE, marker)
    return harness.returncode, stderr_path.read_text(), seen


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.system)
def test_nothing_listens_beyond_loopback(engine, bin_dir, tmp_path):
    require(engine)
    status, stderr, seen = watch_run(engine, tmp_path)
    # A run that ended well had its engine up throughout: every server it starts was started.
    assert status == 0, stderr[-2000:]
    assert seen, f"{engine.system} was never seen listening: the test looked at nothing"
    own = os.readlink("/proc/self/ns/net")
    outside = sorted(f"{s.table} {s.host}:{s.port} pid {s.pid} ({s.command[:100]})"
                     for s in seen if s.reachable_from(own))
    assert not outside, f"{engine.system} listens beyond loopback:\n" + "\n".join(outside)


def test_mpirun_is_isolated_unless_its_entry_names_hosts(monkeypatch):
    """The launch command itself, where a namespace can be made: ranks of this host only, in
    loopback's namespace; an entry that sends ranks to other hosts is left as it is."""
    monkeypatch.setattr("taskbench.launch.loopback.can_isolate", lambda: True)
    local = System(name="x", binary="x", folder=Path("."), binary_path=Path("/bin/x"), launcher="mpirun")
    argv = command(local, [], LaunchOptions(ranks=2)).argv
    assert argv[:len(wrap([]))] == wrap([]) and "-expect-ranks" in argv
    remote = dataclasses.replace(local, extra={"mpirun_args": ["--hostfile", "hosts"]})
    assert command(remote, [], LaunchOptions(ranks=2)).argv[0] != wrap([])[0]
