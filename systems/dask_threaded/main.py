"""dask_threaded: every graph of the run as one Dask task graph, built once and handed whole to
Dask's threaded local scheduler in this process (one get for the run, not one compute per task).
A task is run_task(graph, t, i, *inputs), its inputs the keys of its producers in row t-1, so
Dask moves the outputs (bytearrays) from producer to consumer itself. Not the paper's Dask,
which is always distributed (dask_distributed)."""
import sys
from concurrent.futures import ThreadPoolExecutor

from taskbench.engine.app import MAX_WORKERS, App, Flag, available_cores, engine_version, import_engine, wall_time, warm_up
from taskbench.engine.dask_graph import check_leaves, task_graph


def main() -> None:
    app = App([Flag("-worker", "N", "threads of Dask's threaded scheduler (default: cores)", 1, MAX_WORKERS)],
              version=engine_version("dask"))
    dask = import_engine("dask.threaded", "dask", app)
    workers = app.flag("-worker", available_cores())
    app.set_parallelism(1, workers)
    app.display()
    dsk, leaves = task_graph(app.graphs)
    with ThreadPoolExecutor(workers) as pool:
        warm_up(pool, workers)
        # Dask's own work on the graph (ordering, dependency tracking) is part of the run.
        start = wall_time()
        unread = dask.threaded.get(dsk, leaves, pool=pool, num_workers=workers)
        elapsed = wall_time() - start
    check_leaves(app.graphs, leaves, unread)
    app.report(elapsed)


if __name__ == "__main__":
    main()
