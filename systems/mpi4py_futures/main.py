"""mpi4py_futures: mpi4py.futures' MPIPoolExecutor, MPI ranks as a pool of worker processes.

Started by mpirun (the harness's mpirun launcher) as N ranks of build/bin/mpi4py_futures, each
rank checks the flags, then becomes `python -m mpi4py.futures main.py ...`: rank 0 runs this
script's driver, ranks 1 to N-1 serve as the pool's N-1 workers. The driver makes a future per
task before it waits: a task without producers is submitted at once; the others once the
futures of their producers are done (mpi4py.futures.collect), with their results as inputs."""
import json
import os
import queue
import sys

from taskbench._core import tracing
from taskbench.engine.app import (App, Flag, Tally, engine_version, import_engine, rows, run_task_on_host,
                                  wall_time, worker_setup)

# Set for the ranks' second start, under mpi4py.futures: the system's name (argv[0] of the first).
NAME_VARIABLE = "TASKBENCH_MPI4PY_FUTURES_NAME"


def make_app(argv: list[str]) -> App:
    return App([Flag("-expect-ranks", "N", "fail unless the launch started exactly N MPI ranks", 1)],
               version=engine_version("mpi4py"), argv=argv)


def become_pool() -> None:
    """Every rank, as mpirun started it: the flags first (a bad one: the core's line and 2),
    then the engine (missing: 4), then this script again under mpi4py.futures, which
    initialises MPI and splits the ranks into the driver and the pool's workers."""
    app = make_app(sys.argv)
    import_engine("mpi4py", "mpi4py", app)  # the package only: MPI is initialised by mpi4py.futures
    os.environ[NAME_VARIABLE] = sys.argv[0]
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "mpi4py.futures", os.path.abspath(__file__), *sys.argv[1:]])


def fail(status: int, line: str) -> None:
    """Ends the job from the driver: mpirun then stops the workers (their server loop never
    returns on its own) and exits with this status."""
    sys.stdout.flush()
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    os._exit(status)


def task_future(pool, futures_module, graph, t: int, i: int, producers: list):
    """The future of task (t, i): submitted now without producers, else once all of theirs
    are done, with their outputs (results' first halves) as its inputs."""
    if not producers:
        return pool.submit(run_task_on_host, graph, t, i)
    task = futures_module.Future()

    def relay(submitted) -> None:
        error = submitted.exception()
        task.set_exception(error) if error is not None else task.set_result(submitted.result())

    def launch(ready) -> None:
        error = ready.exception()
        if error is not None:
            task.set_exception(error)
            return
        pool.submit(run_task_on_host, graph, t, i, *[output for output, _ in ready.result()]).add_done_callback(relay)

    futures_module.collect(producers).add_done_callback(launch)
    return task


def run(pool, futures_module, graphs) -> tuple[float, list, BaseException | None, list]:
    """Makes every task's future, then takes them as they finish until all have, or one
    failed. Returns (elapsed, the workers' (note, host) pairs, the failure or None, (graph, t,
    i, future) of every last row)."""
    finished = queue.SimpleQueue()  # done futures, put by the pool's thread
    total = 0
    last_rows = []
    start = wall_time()
    for g in graphs:
        previous = {}
        for t in range(g.timesteps):
            current = {i: task_future(pool, futures_module, g, t, i, [previous[j] for j in g.dependencies(t, i)])
                       for i in rows(g, t)}
            for future in current.values():
                future.add_done_callback(finished.put)
            total += len(current)
            if t + 1 == g.timesteps:
                last_rows += [(g, t, i, future) for i, future in current.items()]
            previous = current  # a consumer's pending collect holds what it still needs
    notes = []
    for _ in range(total):
        future = finished.get()
        if future.exception() is not None:
            return wall_time() - start, notes, future.exception(), last_rows
        notes.append(future.result()[1])
    return wall_time() - start, notes, None, last_rows


def worker_pid(_round: int) -> int:
    return os.getpid()


def drive() -> None:
    """Rank 0, under mpi4py.futures."""
    from mpi4py import MPI, futures
    app = make_app([os.environ.pop(NAME_VARIABLE), *sys.argv[1:]])
    size = MPI.COMM_WORLD.Get_size()
    expected = app.flag("-expect-ranks", 0)
    if expected and expected != size:
        fail(2, f"taskbench: -expect-ranks {expected}, but the job has {size} rank(s): start it with "
                f"mpirun -np {expected}")
    # Each worker's fault switch (TASKBENCH_FAULT, which mpirun passes on) and tracing. A job of
    # one rank has no worker ranks: mpi4py.futures then runs the tasks in a thread of this one.
    with futures.MPIPoolExecutor(initializer=worker_setup, initargs=(tracing(),)) as pool:
        workers = pool.num_workers
        # Before the timed region: the pool is up (num_workers waits for it, the initializer
        # has run on every worker) and tasks have made the round trip.
        list(pool.map(worker_pid, range(2 * workers)))
        app.set_parallelism(max(size - 1, 1), 1)
        app.add_report_json("pool_workers", str(workers))
        app.display()
        elapsed, notes, error, last_rows = run(pool, futures, app.graphs)
        if error is not None:
            fail(1, f"taskbench: a task failed in the MPI pool ({type(error).__name__}: {error})")
        # The outputs of the last rows, as they reached the driver (a failure: exit 3 from here,
        # and mpirun stops the workers).
        for g, t, i, future in last_rows:
            g.check_unread_output(t, i, future.result()[0])
    tally = Tally(len(app.graphs))
    for note, host in notes:
        tally.add(note, host)
    app.add_report_json("hosts", json.dumps(tally.hosts))
    app.report(elapsed, tally.executed)


if __name__ == "__main__":
    if os.environ.get(NAME_VARIABLE):
        drive()
    else:
        become_pool()
