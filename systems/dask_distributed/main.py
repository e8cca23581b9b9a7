"""dask_distributed: the paper's dask_core port (task_bench_direct.py on one worker process per
core, one thread each): the run's task graph (taskbench.engine.dask_graph), built inside the timed
region and handed to a Dask distributed scheduler whole (one Client.get for the run), asking for
every task's output.

Alone (`-workers N -threads T`) it starts a scheduler and N worker processes on 127.0.0.1
(taskbench.clusters.dask) and stops them after the run; with `-scheduler ADDRESS` it
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
from taskbench.engine.dask_workers import Departures, prepare_workers, results_held, take_notes
from taskbench.clusters.dask import ClusterError, DaskCluster

CONNECT_SECONDS = 120  # a loaded 2-core machine starting N interpreters that import distributed


def usage(message: str) -> None:
    """A flag combination the core's parser cannot judge: one line, status 2, as its own."""
    sys.stderr.write(f"taskbench: {message}\n")
    sys.exit(2)


def parallelism(client) -> tuple[int, int]:
    """(workers, threads each) of the attached cluster; an uneven one counts as its threads."""
    threads = [w["nthreads"] for w in client.scheduler_info()["workers"].values()]
    return (len(threads), threads[0]) if len(set(threads)) == 1 else (sum(threads), 1)


def wait_for_all(client, distributed, futures, finished: threading.Event, failed: list) -> None:
    """distributed.wait on every future, as the paper's port waits; on a thread of its own, so
    that a worker leaving the cluster (which may leave a future pending forever) ends the wait
    too. What the wait raised is kept in `failed`, for the driver to raise."""
    try:
        with client.as_current():  # the client wait() uses: this system's, not a default one
            distributed.wait(futures)
    except BaseException as exc:  # noqa: BLE001  (raised again by run(), unless a worker left)
        failed.append(exc)
    finished.set()


def run(client, distributed, graphs, departures: Departures) -> tuple[float, int, int]:
    """As the paper's dask_core port (task_bench_direct.py): the clock starts before the graph
    is built; every task's output is asked for (so the scheduler reports each to this client and
    frees none), and the run waits for all of them, or for a worker to leave. Timed: building
    the graph, Dask's work on it (serialising, ordering, sending), the run and the results.
    Returns (elapsed, outputs asked for, outputs the scheduler held for them at the end)."""
    finished, failed = threading.Event(), []
    departures.on_departure(finished.set)
    start = wall_time()
    dsk, leaves = task_graph(graphs)
    keys = list(dsk)
    futures = client.get(dsk, keys, sync=False)
    threading.Thread(target=wait_for_all, args=(client, distributed, futures, finished, failed),
                     name="taskbench-wait", daemon=True).start()
    finished.wait()
    elapsed = wall_time() - start
    held = 0
    if not departures.gone:
        if failed:
            raise failed[0]
        held = results_held(client)
        # The core checks the outputs no task read (the others were checked by their
        # consumers); a task's own error, if one had any, is raised here.
        by_key = dict(zip(keys, futures, strict=True))
        check_leaves(graphs, leaves, client.gather([by_key[k] for k in leaves]))
    del futures
    return elapsed, len(keys), held


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
            cluster = stack.enter_context(DaskCluster(workers, app.flag("-threads", 1)))
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
        elapsed, asked, held = run(client, distributed, app.graphs, departures)
        if departures.gone:
            fail_after_departure(departures, pids, cluster)
        tally = Tally(len(app.graphs))
        for host, note in take_notes(client, len(app.graphs)):
            tally.add(note, host)
        app.add_report_json("hosts", json.dumps(tally.hosts))
        app.add_report_json("results", json.dumps({"asked_for": asked, "held_by_scheduler": held,
                                                   "what": "task outputs the run asked the scheduler for"}))
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
