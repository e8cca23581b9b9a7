"""python_futures: concurrent.futures, the plain-Python baseline. The driver submits each task
to a thread pool (or, with -processes, a process pool) once all its inputs are done, passing
the producers' outputs as arguments; a done-callback queues each finished task back to the
driver, which releases its consumers. Graphs run side by side in the one pool."""
import multiprocessing
import queue
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from taskbench._core import tracing
from taskbench.engine.app import (MAX_WORKERS, App, Flag, Tally, available_cores, end_after_failed_workers,
                           run_task, run_task_in_worker, wall_time, warm_up, worker_setup)

MANAGER_SECONDS = 30  # for the pool's manager thread to reap its processes after a death


class Run:
    """The driver's side: which tasks wait on how many inputs, and the outputs still needed."""

    def __init__(self, pool, graphs, processes: bool):
        self.pool = pool
        self.graphs = graphs
        self.processes = processes
        self.finished = queue.SimpleQueue()
        self.waiting = {}  # (graph, t, i) -> inputs not yet produced
        self.outputs = {}  # (graph, t, i) -> [output, consumers not yet submitted]
        self.last_rows = []  # (graph, t, i, output) of every last timestep, checked after the run
        self.tally = Tally(len(graphs))

    def submit(self, g, t, i):
        deps = g.dependencies(t, i)
        inputs = []
        for j in deps:
            held = self.outputs[(g.index, t - 1, j)]
            inputs.append(held[0])
            held[1] -= 1
            if held[1] == 0:  # its last consumer: the driver lets go of it
                del self.outputs[(g.index, t - 1, j)]
        future = self.pool.submit(run_task_in_worker if self.processes else run_task, g, t, i, *inputs)
        future.task = (g, t, i)
        future.add_done_callback(self.finished.put)

    def start(self):
        total = 0
        for g in self.graphs:
            for t in range(g.timesteps):
                for i in range(g.offset(t), g.offset(t) + g.width(t)):
                    total += 1
                    n = len(g.dependencies(t, i))
                    if n:
                        self.waiting[(g.index, t, i)] = n
                    else:
                        self.submit(g, t, i)
        return total

    def finish(self, future):
        g, t, i = future.task
        result = future.result()  # a worker's death raises here
        if self.processes:
            result, note = result
            self.tally.add(note)
        consumers = g.successors(t, i) if t + 1 < g.timesteps else []
        if t + 1 == g.timesteps:
            self.last_rows.append((g, t, i, result))
        if consumers:
            self.outputs[(g.index, t, i)] = [result, len(consumers)]
        for j in consumers:
            key = (g.index, t + 1, j)
            self.waiting[key] -= 1
            if self.waiting[key] == 0:
                del self.waiting[key]
                self.submit(g, t + 1, j)


def run(pool, graphs, processes: bool, workers: int) -> tuple:
    warm_up(pool, workers)
    state = Run(pool, graphs, processes)
    start = wall_time()
    remaining = state.start()
    while remaining:
        state.finish(state.finished.get())
        remaining -= 1
    return wall_time() - start, state.tally.executed, state.last_rows


def check_last_rows(last_rows: list) -> None:
    """After the run, and after the pool has ended (a failed check ends this process at once):
    every last-timestep output, as it reached the driver, to the core's check."""
    for g, t, i, output in last_rows:
        g.check_unread_output(t, i, output)


def main() -> None:
    app = App([Flag("-worker", "N", "threads or processes (default: cores)", 1, MAX_WORKERS),
               Flag("-processes", "", "a process pool instead of a thread pool")])
    workers = app.flag("-worker", available_cores())
    processes = app.flag("-processes", 0) == 1
    app.set_parallelism(1, workers)
    app.add_report_json("pool", '"processes"' if processes else '"threads"')
    app.display()
    if processes:
        # forkserver: workers start from a clean interpreter, not a copy of this one's threads.
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=worker_setup,
                                 initargs=(tracing(),)) as pool:
            try:
                elapsed, executed, last_rows = run(pool, app.graphs, processes, workers)
            except BrokenProcessPool as exc:
                end_after_failed_workers(exit_codes(pool), f"a worker process died ({exc})")
        check_last_rows(last_rows)
        app.report(elapsed, executed)
    else:
        with ThreadPoolExecutor(workers) as pool:
            elapsed, _, last_rows = run(pool, app.graphs, processes, workers)
        check_last_rows(last_rows)
        app.report(elapsed)


def exit_codes(pool) -> dict:
    """Exit codes of the pool's processes. concurrent.futures does not publish its processes;
    their Process objects (_processes) are the only place their exit codes are kept.

    Read once the pool's manager thread has ended, never beside it: that thread joins every
    process as it tears the broken pool down, and a forkserver process's exit code is one message
    on a pipe, which only the first of two threads polling the same process reads; the second
    finds the pipe empty and multiprocessing gives it exit code 255. The SIGKILLed worker then
    passed for an ordinary exit, and the SIGTERM the pool sent a survivor was taken for the
    cause (2 runs of 40 here, beside other work, before this; the codes were logged as each
    run ended)."""
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(MANAGER_SECONDS)
    return {pid: process.exitcode for pid, process in list((getattr(pool, "_processes", None) or {}).items())}


# Worker processes (forkserver) load this file as __mp_main__: only the driver runs main().
if __name__ == "__main__":
    main()
