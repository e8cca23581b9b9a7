"""charm4py: Charm++ through charm4py. One chare per point of each graph (column.py); a task's
inputs arrive as messages from the chares that produced them. Run as build/bin/charm4py, this
script checks the flags, then becomes charmrun (++local), which starts -worker N processes
(PEs, +pN) that each run this script again under Charm++; PE 0's chare Main is the driver.
With -hosts FILE, charmrun starts them on the hosts of that cluster description instead."""
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, engine_version, import_engine,
                           missing_engine, wall_time)

# Set in the environment of charmrun's PEs: this script is then a Charm++ program, not the launch.
PE_MARK = "TASKBENCH_CHARM4PY_PE"
# charmrun's own variable, which its remote-shell script exports on every host: the PE mark
# does not survive ssh, which drops the environment.
CHARMRUN_START = "NETSTART"

in_pe = bool(os.environ.get(PE_MARK) or os.environ.get(CHARMRUN_START))
if in_pe:
    try:
        from charm4py import Array, Chare, Future, Group, charm
    except ImportError:
        missing_engine("charm4py", "charm4py")
else:
    Chare = object  # Main is only defined for the PEs' sake

from taskbench import _core


def make_app(argv: list[str]) -> App:
    return App([Flag("-worker", "N", "PEs: processes charmrun starts, one task at a time each (default: cores)",
                     1, MAX_WORKERS),
                Flag("-hosts", "FILE", "PEs on the hosts of this cluster description (docs/clusters.md), "
                     "started through their start methods", text=True)],
               version=engine_version("charm4py"), argv=argv)


def launch() -> None:
    """Checks the flags here (a bad one: the core's line and 2, -h: the help, before any PE
    starts, and before charm4py is imported), then runs charmrun and ends with its status once
    every PE has ended too."""
    app = make_app(sys.argv)
    description = app.text_flag("-hosts")
    cluster = hosts_of(description) if description else None
    pes = app.flag("-worker", cluster.cores if cluster else available_cores())
    # Imported without its runtime (CHARM_NOLOAD): loaded, charm4py registers an exit hook that
    # prints a complaint on stdout in a process that never calls charm.start.
    os.environ["CHARM_NOLOAD"] = "1"
    import_engine("charm4py", "charm4py", app)
    import charmrun
    del os.environ["CHARM_NOLOAD"]  # charmrun's PEs load the runtime
    program = [sys.executable, os.path.abspath(sys.argv[0]), *sys.argv[1:]]
    # ++local: PEs are forked here, no ssh; ++useip: they reach charmrun on loopback;
    # ++quiet: no start-up banner on stdout.
    argv = [str(Path(charmrun.__file__).parent / "charmrun"), f"+p{pes}", "++quiet"]
    os.environ[PE_MARK] = "1"
    sys.stdout.flush()
    if cluster is None:
        sys.exit(run_reaping_orphans([*argv, "++local", "++useip", "127.0.0.1", *program]))
    from nodes import charmrun_options
    from taskbench.hosts.description import HOSTS_VARIABLE
    os.environ[HOSTS_VARIABLE] = str(cluster.path)  # where the host agent reads the description
    # Beside the description, on the file system the hosts share, and charmrun's working folder:
    # as srun's mpiexec it writes the script its PEs run there (charmrun.PID), which goes with it.
    with tempfile.TemporaryDirectory(prefix=".taskbench-charm4py-", dir=cluster.path.parent) as folder:
        os.chdir(folder)
        status = run_reaping_orphans([*argv, *charmrun_options(cluster, Path(folder)), *program])
    sys.exit(status)


def hosts_of(description: str):
    from taskbench.errors import UserError
    from taskbench.hosts.description import read_cluster
    try:
        return read_cluster(Path(description))
    except UserError as error:
        sys.stderr.write(f"taskbench: {error}\n")
        sys.exit(2)


def run_reaping_orphans(argv: list[str]) -> int:
    """charmrun can exit while its PEs are still ending (after charm.exit, or when one died):
    as their subreaper this process adopts them and waits for them, so the run is over only
    when all of its processes are."""
    import ctypes
    import signal
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    child = os.fork()
    if child == 0:
        os.execv(argv[0], argv)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: os.kill(child, number))
    status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    deadline = wall_time() + 10
    while True:  # the orphans: PEs that outlived charmrun
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if wall_time() > deadline:  # a PE that will not end: it would hold its cores
                for orphan in children():
                    os.kill(orphan, signal.SIGKILL)
            time.sleep(0.01)
    return status if status >= 0 else 128 - status


def children() -> list[int]:
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:  # the parent pid is the second field after the parenthesised name
            if stat.read_text().rsplit(")", 1)[1].split()[1] == me:
                found.append(int(stat.parent.name))
        except (OSError, IndexError):
            pass  # ended meanwhile
    return found


def ask(method, *args):
    """Calls a broadcast entry method that answers through a reduction, and waits for it."""
    future = Future()
    method(*args, future)
    return future.get()


class Main(Chare):
    """The driver, on PE 0 (Charm++'s main chare): the App, the chare arrays, the timing."""

    def __init__(self, args):
        app = make_app(args)
        # Across hosts the PEs are processes on several machines, as an MPI system's ranks.
        app.set_parallelism(*((charm.numPes(), 1) if app.text_flag("-hosts") else (1, charm.numPes())))
        app.display()
        graphs = app.graphs
        processes = Group(Process)
        ask(processes.setup, os.environ.get("TASKBENCH_FAULT", ""), _core.tracing())
        columns = [Array(Column, g.max_width, args=[g, self.thisProxy]) for g in graphs]
        for array in columns:
            ask(array.ready)
        start = wall_time()
        finished = [Future() for _ in graphs]
        for array, future in zip(columns, finished):
            array.start(future)
        for future in finished:
            future.get()
        elapsed = wall_time() - start
        for array in columns:
            ask(array.check_last_row)
        tally = Tally(len(graphs))
        for host, note in ask(processes.note, len(graphs)):
            tally.add(note, host)
        app.add_report_json("hosts", json.dumps(tally.hosts))
        app.report(elapsed, tally.executed, tally.last_row_checked)
        charm.exit(0)

    def failed(self, line: str) -> None:
        """A task's validation failed on some PE: its line, then every process ends with 3."""
        sys.stdout.flush()
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        charm.exit(3)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # column.py on every PE, nodes.py here
    if in_pe:
        from column import Column, Process
        charm.start(Main, classes=[Main, Column, Process])
    else:
        launch()
