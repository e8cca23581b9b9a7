"""ray: every task a Ray task, submitted at once for the whole run, each with the object
references of its producers' outputs as arguments, so Ray resolves the dependencies and moves
the outputs itself. Local (ray.init with -worker N CPUs on 127.0.0.1) or attached to a running
cluster (-address ADDRESS), such as the one the harness starts across hosts (clusters/ray.py).
Each task's note says the host it ran on: the report's "hosts"."""
import json
import logging
import os
import sys

from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, engine_version, import_engine, rows,
                           wall_time)
from taskbench._core import ValidationError, tracing
from taskbench.engine.worker_task import hosted_task

WARM_UP_ROUNDS = 4
ray = None  # imported by main() once the flags are parsed (taskbench.engine.app.import_engine)


def submit(graphs, home, switches) -> tuple[list, list, list]:
    """Every task of every graph, each through home(graph, column); returns (the outputs nobody
    consumes, their tasks (graph, t, i), every task's note)."""
    leaves, leaf_tasks, notes = [], [], []
    for g in graphs:
        previous = {}
        for t in range(g.timesteps):
            current = {}
            for i in rows(g, t):
                output, note = home(g, i).remote(switches, g, t, i, *[previous[j] for j in g.dependencies(t, i)])
                current[i] = output
                notes.append(note)
                if t + 1 == g.timesteps or not g.successors(t, i):
                    leaves.append(output)
                    leaf_tasks.append((g, t, i))
            # The driver lets go of row t-1: the tasks that read it hold their own references.
            previous = current
    return leaves, leaf_tasks, notes


def homes(remote, attached: bool):
    """home(graph, column): the remote function that runs the column's tasks. On a local instance
    Ray's scheduler places them. On a cluster each CPU of each node owns a contiguous block of
    columns, as Task Bench's ranks own theirs: left to itself, Ray keeps a short run's tasks
    beside their inputs, on the driver's node, and the other hosts do nothing."""
    if not attached:
        return lambda g, i: remote
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    slots = []
    for node in ray.nodes():
        if node["Alive"]:
            pinned = remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False))
            slots += [pinned] * int(node["Resources"].get("CPU", 0))
    return lambda g, i: slots[i * len(slots) // g.max_width]


def warm_up(remote, workers: int, switches) -> None:
    """Starts every worker process before the timed region (Ray starts them on demand) and
    imports the task's modules there, with tasks that run no kernel: first one on each node,
    so that every node of a cluster is known to the one the driver submits to (a raylet learns
    of the others a moment after they join)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote
    def ready() -> int:
        import taskbench.engine.worker_task  # noqa: F401
        return os.getpid()
    ray.get([ready.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote()
             for node in ray.nodes() if node["Alive"]])
    for _ in range(WARM_UP_ROUNDS):
        if len(set(ray.get([ready.remote() for _ in range(4 * workers)]))) >= workers:
            return


def fail(exc: Exception) -> None:
    """Ends the run after a task failed: 3 with the core's line for a failed validation, else 1
    with Ray's reason (Ray keeps a dead worker's exit status to its raylet)."""
    cause = exc.as_instanceof_cause() if isinstance(exc, ray.exceptions.RayTaskError) else exc
    sys.stdout.flush()
    if isinstance(cause, ValidationError):
        ray.shutdown()
        sys.stderr.write(f"{cause.args[0] if cause.args else cause}\n")
        sys.stderr.flush()
        os._exit(3)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    sys.stderr.write(f"taskbench: a Ray worker process died during the run ({type(exc).__name__}: {first})\n")
    sys.stderr.flush()
    ray.shutdown()  # the processes of a local instance go with it
    os._exit(1)


def main() -> None:
    app = App([Flag("-worker", "N", "CPUs of the local Ray instance: worker processes (default: cores)",
                    1, MAX_WORKERS),
               Flag("-address", "ADDRESS", "attach to this Ray cluster (HOST:PORT) instead of starting one",
                    text=True)],
              version=engine_version("ray"))
    address = app.text_flag("-address")
    if address and app.flag("-worker", 0):
        sys.stderr.write("taskbench: -worker: applies to the Ray instance this system starts, not to -address's cluster\n")
        sys.exit(2)
    if not address:
        # A local instance is one node on 127.0.0.1. Ray's single-node switch (named for Windows
        # and macOS, read at import) makes it take loopback as the node's address instead of
        # probing a public DNS server for the outward interface, which fails with a warning on
        # stderr in the loopback launcher's namespace.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    global ray
    ray = import_engine("ray.exceptions", "ray", app)
    if address:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    else:
        # 127.0.0.1: Ray otherwise takes the address of the host's outward interface.
        ray.init(num_cpus=app.flag("-worker", available_cores()), include_dashboard=False,
                 _node_ip_address="127.0.0.1", logging_level=logging.ERROR, log_to_driver=False)
    workers = int(ray.cluster_resources().get("CPU", 1))
    # A cluster's workers are processes on its nodes; a local instance counts as one process.
    app.set_parallelism(*((workers, 1) if address else (1, workers)))
    app.display()
    # One CPU each (one task per worker process at a time); no retry: a worker's death ends the run.
    remote = ray.remote(num_returns=2, max_retries=0, num_cpus=1)(hosted_task)
    switches = (os.environ.get("TASKBENCH_FAULT", ""), tracing())
    warm_up(remote, workers, switches)
    tally = Tally(len(app.graphs))
    try:
        start = wall_time()
        leaves, leaf_tasks, notes = submit(app.graphs, homes(remote, bool(address)), switches)
        unread = ray.get(leaves)
        elapsed = wall_time() - start
        for (g, t, i), output in zip(leaf_tasks, unread):  # as they reached the driver
            g.check_unread_output(t, i, output)
        for note, host in ray.get(notes):
            tally.add(note, host)
    except ray.exceptions.RayError as exc:  # a task's error, or its worker's death
        fail(exc)
    ray.shutdown()
    app.add_report_json("hosts", json.dumps(tally.hosts))
    app.report(elapsed, tally.executed)


if __name__ == "__main__":
    main()
