"""dask_distributed: the dask system's task graph (taskbench.engine.dask_graph) on a Dask distributed
cluster of worker processes, handed to the scheduler whole (one Client.get for the run).

Alone (`-workers N -threads T`) it starts a scheduler and N worker processes on 127.0.0.1
(taskbench.launch.dask_cluster) and stops them after the run; with `-scheduler ADDRESS` it
attaches to a running cluster, started by the harness or by its user, and waits for `-workers`
of its workers. A worker that leaves the cluster during the run ends it as a failure."""
import json
import os
import sys
import threading
from contextlib import ExitStack

from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, end_after_failed_workers,
                           engine_version, import_engine, wall_time)
from taskbench._core import tracing
from taskbench.engine.dask_graph import check_leaves, task_graph
from taskbench.engine.dask_workers import Departures, prepare_workers, take_notes
from taskbench.launch.dask_cluster import Cluster, ClusterError

CONNECT_SECONDS = 120  # a loaded 2-core machine starting N interpreters that import distributed


def usage(message: str) -> None:
    """A flag combination the core's parser cannot judge: one line, status 2, as its own."""
    sys.stderr.write(f"taskbench: {message}\n")
    sys.exit(2)


def parallelism(client) -> tuple[int, int]:
    """(workers, threads each) of the attached cluster; an uneven one counts as its threads."""
    threads = [w["nthreads"] for w in client.scheduler_info()["workers"].values()]
    return (len(threads), threads[0]) if len(set(threads)) == 1 else (sum(threads), 1)


def run(client, graphs, departures: Departures) -> float:
    """Hands every graph to the scheduler at once and waits for its results, or for a worker
    to leave. Timed: Dask's own work on the graph (serialising, ordering, sending) included."""
    dsk, leaves = task_graph(graphs)
    finished, lock, left = threading.Event(), threading.Lock(), [len(leaves)]
    departures.on_departure(finished.set)

    def done(_future) -> None:  # on distributed's callback thread
        with lock:
            left[0] -= 1
            if left[0] == 0:
                finished.set()

    start = wall_time()
    futures = client.get(dsk, leaves, sync=False)
    for future in futures:
        future.add_done_callback(done)
    finished.wait()
    elapsed = wall_time() - start
    if not departures.gone:
        # Raises a task's own error, if one had any; else the outputs no task read.
        check_leaves(graphs, leaves, client.gather(futures))
    del futures
    return elapsed


def main() -> None:
    app = App([Flag("-workers", "N", "worker processes to start (default: cores); with -scheduler: "
                    "to wait for (default 1)", 1, MAX_WORKERS),
               Flag("-threads", "N", "threads per worker process started (default 1)", 1, MAX_WORKERS),
               Flag("-scheduler", "ADDRESS", "attach to this cluster's scheduler instead of "
                    "starting one (tcp://HOST:PORT)", text=True)],
              version=f"{engine_version('dask')}, {engine_version('distributed')}")
    distributed = import_engine("distributed", "distributed", app)
    address = app.text_flag("-scheduler")
    if address and app.flag("-threads", 0):
        usage("-threads: applies to the workers this system starts, not to those of -scheduler's cluster")
    workers = app.flag("-workers", 1 if address else available_cores())
    with ExitStack() as stack:
        cluster = None
        if not address:
            cluster = stack.enter_context(Cluster(workers, app.flag("-threads", 1)))
            try:
                address = cluster.start()
            except ClusterError as exc:
                sys.stderr.write(f"taskbench: {exc}\n")
                sys.exit(1)
        client = stack.enter_context(distributed.Client(address, timeout=CONNECT_SECONDS,
                                                        set_as_default=False))
        client.wait_for_workers(workers, timeout=CONNECT_SECONDS)
        app.set_parallelism(*parallelism(client))
        app.display()
        pids = prepare_workers(client, tracing())
        departures = stack.enter_context(Departures(client, cluster))
        elapsed = run(client, app.graphs, departures)
        if departures.gone:
            fail_after_departure(departures, pids, cluster)
        tally = Tally(len(app.graphs))
        for host, note in take_notes(client, len(app.graphs)):
            tally.add(note, host)
        app.add_report_json("hosts", json.dumps(tally.hosts))
    app.report(elapsed, tally.executed)


def fail_after_departure(departures: Departures, pids: dict, cluster) -> None:
    """Ends the run after a worker (or the scheduler) left: with the worker's own status where
    this process started it (3 after its failed validation, its signal after a kill), else
    with the address of the one that left."""
    status = 1
    try:
        if cluster is not None:
            codes = cluster.exit_codes()
            cluster.stop()
            end_after_failed_workers(codes, f"the Dask cluster lost {departures.describe(pids)} during the run")
        sys.stderr.write(f"taskbench: {departures.describe(pids)} left the Dask cluster during the run\n")
    except SystemExit as exit_:
        status = exit_.code
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # not through the client's close, which would wait for a scheduler that may be gone


if __name__ == "__main__":
    main()
