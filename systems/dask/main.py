"""dask: every graph of the run as one Dask task graph, built once and handed to Dask's
threaded scheduler whole (one get for the run, not one compute per task). A task is
run_task(graph, t, i, *inputs), its inputs the keys of its producers in row t-1, so Dask moves
the outputs (bytearrays) from producer to consumer itself."""
import sys
from concurrent.futures import ThreadPoolExecutor

from taskbench.app import MAX_WORKERS, App, Flag, available_cores, missing_engine, run_task, wall_time, warm_up

try:
    import dask
    import dask.threaded
except ImportError:
    missing_engine("dask", "dask")


def key(g, t: int, i: int) -> tuple:
    return (f"task-{g.index}", t, i)


def task_graph(graphs) -> tuple[dict, list]:
    """The Dask graph of every task (legacy tuple form: (callable, *args), keys as args are
    replaced by their values), and the keys of tasks no other task reads (the results asked
    for, so that Dask runs everything)."""
    dsk, leaves = {}, []
    for g in graphs:
        for t in range(g.timesteps):
            for i in range(g.offset(t), g.offset(t) + g.width(t)):
                dsk[key(g, t, i)] = (run_task, g, t, i, *[key(g, t - 1, j) for j in g.dependencies(t, i)])
                if t + 1 == g.timesteps or not g.successors(t, i):
                    leaves.append(key(g, t, i))
    return dsk, leaves


def main() -> None:
    app = App([Flag("-worker", "N", "threads of Dask's threaded scheduler (default: cores)", 1, MAX_WORKERS)],
              width_defaults_to_cores=True, version=f"dask {dask.__version__}")
    workers = app.flag("-worker", available_cores())
    app.set_parallelism(1, workers)
    app.display()
    dsk, leaves = task_graph(app.graphs)
    with ThreadPoolExecutor(workers) as pool:
        warm_up(pool, workers)
        # Dask's own work on the graph (ordering, dependency tracking) is part of the run.
        start = wall_time()
        dask.threaded.get(dsk, leaves, pool=pool, num_workers=workers)
        elapsed = wall_time() - start
    app.report(elapsed)


if __name__ == "__main__":
    main()
