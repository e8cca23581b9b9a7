"""ray_compiled: Ray Compiled Graphs. A window of rows of every graph is one static DAG of actor
method calls (one actor per worker, columns homed in contiguous blocks), compiled once before
the timed region (experimental_compile) and replayed over Ray's shared-memory channels until
every row ran. Local Ray instance on 127.0.0.1 with -worker N CPUs, one actor each, or a running
cluster (-address ADDRESS, such as the one the harness starts across hosts: clusters/ray.py) with
one actor per CPU of its nodes. Each actor's note says its host: the report's "hosts"."""
import gc
import json
import logging
import math
import os
import socket
import sys
from collections import deque

from taskbench import _core
from taskbench._core import ValidationError, tracing
from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, engine_version, import_engine, rows,
                                  run_task, wall_time)
from taskbench.engine.worker_task import setup

DEFAULT_WINDOW = 8  # rows per window before rounding up to the period (README: Measured)
IN_FLIGHT = 4  # replays submitted ahead of the one the driver waits for (Ray's limit is 10)
# Across nodes, one: measured on the 3-host test cluster, 4 in flight hang on the third replay (a
# raylet pushing a channel's value to another node waits there for its readers), 1 never does.
IN_FLIGHT_ACROSS_NODES = 1
# How long submitting a replay may wait for the channels' readers: a day, as good as none (a hung
# task is the harness's --timeout's). Not Ray's -1: its channel write turns -1 s into 0 ms once
# it has to wait (shared_memory_channel.write), which readers on another node make it do.
SUBMIT_SECONDS = 24 * 3600
ray = None  # imported by main() once the flags are parsed (taskbench.engine.app.import_engine)


class Worker:
    """An actor: runs the DAG nodes of its columns, one at a time, in the order Ray compiled.
    Defined in __main__, so Ray ships the class by value to its worker process."""

    def __init__(self, graphs, windows, switches):
        # The ray system's set-up (TASKBENCH_FAULT, -trace): the raylet, not the driver, is this
        # process's parent, so a failed validation raises instead of ending it with status 3.
        setup(switches)
        self.graphs, self.windows = graphs, windows
        # The outputs of each graph's window's last row, by replay parity: replay m's first row
        # reads replay m-1's while this replay's last row writes the other dict.
        self.kept = ({}, {})
        self.last_rows = {}  # (graph, column) -> the output of the graph's last timestep

    def task(self, m, gi, r, i, sources, *inputs):
        """Task (m x window + r, i), or nothing where the row is past the graph or lacks column
        i. inputs: the outputs of columns `sources` of the row before, every column any replay
        of this node reads, of which the core's dependencies are taken in their order."""
        g = self.graphs[gi]
        t = m * self.windows[gi] + r
        if t >= g.timesteps or not g.contains(t, i):
            return None
        needed = g.dependencies(t, i) if t else []
        if len(needed) != len(inputs):  # sources holds needed, both ascending: equal when as long
            where = {j: k for k, j in enumerate(sources)}
            inputs = [inputs[where[j]] for j in needed]
        output = run_task(g, t, i, *inputs)
        if r == self.windows[gi] - 1:
            self.kept[m % 2][gi, i] = output
        if t + 1 == g.timesteps:
            self.last_rows[gi, i] = output
        return output

    def kept_output(self, m, gi, j):
        """Column j of the previous replay's last row (None before the first replay)."""
        return self.kept[(m - 1) % 2].get((gi, j))

    def sink(self, m, *leaves):
        """Consumes the outputs nobody reads in the window (Ray wants every node consumed), so
        that only None goes back to the driver."""
        return None

    def check_last_rows(self):
        """After the run: this actor's outputs of every last timestep, to the core's check (a
        failure raises ValidationError, the core's line)."""
        for (gi, i), output in self.last_rows.items():
            g = self.graphs[gi]
            g.check_unread_output(g.timesteps - 1, i, output)

    def note(self):
        """What the core counted here (pid, tasks per graph, last-row outputs checked, -trace
        events) and the host it ran on, for the Tally."""
        return (os.getpid(), *_core.take_note(len(self.graphs))), socket.gethostname()


def row_period(g) -> int | None:
    """Rows after which the graph's rows repeat (same offset, width and dependencies), from row 1
    on; None if they never do (dom, tree). Found from the rows themselves: the Python binding
    does not expose the core's period (task_graph_timestep_period), which ignores widths."""
    shapes = [hash((g.offset(t), g.width(t), tuple(tuple(g.dependencies(t, i)) for i in rows(g, t))))
              for t in range(1, g.timesteps)]
    return next((p for p in range(1, len(shapes)) if shapes[p:] == shapes[:-p]), None)


def window_rows(g, asked: int) -> int:
    """Rows per window: `asked` rounded up to a multiple of the period, so that every replay's
    rows have the same dependencies; at most the whole graph."""
    period = row_period(g) or 1
    return min(g.timesteps, period * math.ceil(asked / period))


def window_sources(g, window: int) -> list[dict]:
    """Per row r of the window: {column: the columns of the row before that any replay of
    (r, column) reads}. For periodic patterns these are exactly the dependencies; where rows
    change width (dom, tree) or the window does not divide the steps, a node takes the union."""
    table = [{} for _ in range(window)]
    for t in range(g.timesteps):
        row = table[t % window]
        for i in rows(g, t):
            row.setdefault(i, set()).update(g.dependencies(t, i) if t else ())
    return [{i: tuple(sorted(s)) for i, s in sorted(row.items())} for row in table]


def build(graphs, windows, actors):
    """The DAG of one replay of every graph's window, side by side; returns (its output node,
    nodes). Column i of a graph lives on actor i x actors / width (contiguous blocks, so that
    neighbours' edges mostly stay in one process: Ray passes those without a copy)."""
    from ray.dag import InputNode, MultiOutputNode
    leaves = [[] for _ in actors]
    nodes = 0
    with InputNode() as replay:
        for gi, g in enumerate(graphs):
            table = window_sources(g, windows[gi])

            def home(i):
                return actors[i * len(actors) // g.max_width]
            first_reads = sorted(set().union(*table[0].values()))
            previous = {j: home(j).kept_output.bind(replay, gi, j) for j in first_reads}
            nodes += len(previous)
            for r, row in enumerate(table):
                current = {i: home(i).task.bind(replay, gi, r, i, sources, *[previous[j] for j in sources])
                           for i, sources in row.items()}
                nodes += len(current)
                if r:
                    read = set().union(*row.values())
                    leaves_of(previous, read, actors, leaves, g)
                previous = current
            leaves_of(previous, set(), actors, leaves, g)
        sinks = [actor.sink.bind(replay, *ends) for actor, ends in zip(actors, leaves) if ends]
        return MultiOutputNode(sinks), nodes + len(sinks)


def leaves_of(row: dict, read: set, actors, leaves: list, g) -> None:
    """Adds the nodes of row that the next row does not read to their actor's sink."""
    for i, node in row.items():
        if i not in read:
            leaves[i * len(actors) // g.max_width].append(node)


def replay(dag, replays: int, ahead: int) -> float:
    """Runs the replays, `ahead` of them submitted before the one waited for; returns their time.
    Ray's readers wait by polling with sched_yield (PlasmaObjectHeader::ReadAcquire), so this thread, which
    only submits and waits, runs at the lowest priority: otherwise its polling takes a share of
    the cores the actors run tasks on. No cyclic GC passes over the driver's objects meanwhile."""
    in_flight = deque()
    os.nice(19)  # this thread only (Linux): Ray's own threads keep theirs
    gc.disable()
    start = wall_time()
    for m in range(replays):
        if len(in_flight) == ahead:
            ray.get(in_flight.popleft(), timeout=-1)
        in_flight.append(dag.execute(m))
    while in_flight:
        ray.get(in_flight.popleft(), timeout=-1)
    elapsed = wall_time() - start
    gc.enable()
    return elapsed


def fail(exc: Exception, dag) -> None:
    """Ends the run after a failure: 3 with the core's line for a failed validation, else 1 with
    Ray's reason (Ray keeps a dead worker's exit status to its raylet). Tears down first."""
    cause = exc.as_instanceof_cause() if isinstance(exc, ray.exceptions.RayTaskError) else exc
    sys.stdout.flush()
    if dag is not None:
        dag.teardown(kill_actors=True)
    ray.shutdown()  # the processes of the local instance go with it
    if isinstance(cause, ValidationError):
        sys.stderr.write(f"{cause.args[0] if cause.args else cause}\n")
        sys.stderr.flush()
        os._exit(3)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, ray.exceptions.RayActorError):
        sys.stderr.write(f"taskbench: a Ray worker process died during the run ({type(exc).__name__}: {first})\n")
    else:
        sys.stderr.write(f"taskbench: the compiled graph failed ({type(exc).__name__}: {first})\n")
    sys.stderr.flush()
    os._exit(1)


def main() -> None:
    app = App([Flag("-worker", "N", "CPUs of the local Ray instance: one actor each (default: cores)", 1,
                    MAX_WORKERS),
               Flag("-window", "ROWS", "rows per compiled window, rounded up to the pattern's period "
                    f"(default {DEFAULT_WINDOW})", 1, 1 << 20),
               Flag("-address", "ADDRESS", "attach to this Ray cluster (HOST:PORT) instead of starting one",
                    text=True)],
              version=engine_version("ray"))
    address = app.text_flag("-address")
    if address and app.flag("-worker", 0):
        sys.stderr.write("taskbench: -worker: applies to the Ray instance this system starts, "
                         "not to -address's cluster\n")
        sys.exit(2)
    if not address:
        # As systems/ray: loopback is the node's address (no probe of a public DNS server).
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    global ray
    ray = import_engine("ray.exceptions", "ray", app)
    import ray.dag  # noqa: F401  (DAGContext, InputNode)
    if address:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        workers = int(ray.cluster_resources().get("CPU", 1))
    else:
        workers = app.flag("-worker", available_cores())
        ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1",
                 logging_level=logging.ERROR, log_to_driver=False)
    if app.verbosity == 0:
        # Its monitor thread logs each actor's death with tracebacks as it tears the graph down:
        # the run's own line (fail) says it once.
        logging.getLogger("ray.dag").setLevel(logging.CRITICAL)
    app.set_parallelism(*((workers, 1) if address else (1, workers)))  # as systems/ray
    app.display()
    graphs = app.graphs
    dag = None
    try:
        switches = (os.environ.get("TASKBENCH_FAULT", ""), tracing())
        built = wall_time()
        windows = [window_rows(g, app.flag("-window", DEFAULT_WINDOW)) for g in graphs]
        actors = [ray.remote(num_cpus=1)(Worker).remote(graphs, windows, switches) for _ in range(workers)]
        output, nodes = build(graphs, windows, actors)
        context = ray.dag.DAGContext.get_current()
        # Outputs larger than a channel's 1 MB would make each channel grow on its first replay.
        context.buffer_size_bytes = max(context.buffer_size_bytes, max(g.output_bytes for g in graphs) + 65536)
        dag = output.experimental_compile(_submit_timeout=SUBMIT_SECONDS)
        built = wall_time() - built
        replays = max(math.ceil(g.timesteps / w) for g, w in zip(graphs, windows))
        elapsed = replay(dag, replays, IN_FLIGHT_ACROSS_NODES if sum(n["Alive"] for n in ray.nodes()) > 1
                         else IN_FLIGHT)
        dag.teardown()
        dag = None
        ray.get([a.check_last_rows.remote() for a in actors])
        tally = Tally(len(graphs))
        for note, host in ray.get([a.note.remote() for a in actors]):
            tally.add(note, host)
    except Exception as exc:  # a task's error, an actor's death, or Ray refusing the graph
        fail(exc, dag)
    ray.shutdown()
    app.add_report_json("hosts", json.dumps(tally.hosts))
    app.add_report_json("persistent_graph", f'{{"seconds":{built:.9g},"rows":{windows},"nodes":{nodes},'
                                            f'"replays":{replays}}}')
    app.report(elapsed, tally.executed, tally.last_row_checked)
    print(f"Graph Build Time {built:.6g} seconds (outside the timed region: {nodes} nodes, windows of "
          f"{', '.join(map(str, windows))} rows, {replays} replays)")


if __name__ == "__main__":
    main()
