"""legate: Legion through the legate package, every task a legate task launch whose stores
Legion's dependence analysis orders: task (t, i) writes the store of point i for row t
(OutputStore) and reads the stores of its producers in row t-1 (InputStore), so the runtime,
not this script, finds which launches wait for which. Built only where legate's runtime loads
(CMakeLists.txt, probe.py); never run on the machine it was written on (README.md)."""
import inspect
import sys

import numpy as np

from taskbench.engine.app import EXIT_MISSING_ENGINE, App, rows, wall_time

try:
    from legate.core import get_legate_runtime, types
    from legate.core.task import InputStore, OutputStore, task
except ImportError as exc:
    sys.stderr.write(f"taskbench: legate cannot be imported for {sys.executable}: {exc}\n")
    sys.exit(EXIT_MISSING_ENGINE)

GRAPHS = []  # the run's graphs: legate's CPU tasks run in this process and read them here


def point_task(inputs: int):
    """The legate task for a task with `inputs` producers: a signature legate's decorator reads
    (graph, t, i as scalars, the output store, then one InputStore per producer)."""
    def body(graph: int, t: int, i: int, output: OutputStore, *producers: InputStore) -> None:
        g = GRAPHS[graph]
        buffers = [np.asarray(p.get_inline_allocation()) for p in producers]
        g.execute(t, i, np.asarray(output.get_inline_allocation()), buffers)
    parameters = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a)
                  for n, a in (("graph", int), ("t", int), ("i", int), ("output", OutputStore))]
    parameters += [inspect.Parameter(f"input{k}", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=InputStore)
                   for k in range(inputs)]

    def fixed(*args):
        body(*args)
    fixed.__name__ = f"taskbench_point_{inputs}"
    fixed.__signature__ = inspect.Signature(parameters, return_annotation=None)
    fixed.__annotations__ = {p.name: p.annotation for p in parameters}
    return task(fixed)


def main() -> None:
    app = App(version="legate")
    runtime = get_legate_runtime()
    app.display()
    GRAPHS.extend(app.graphs)
    tasks = {}
    start = wall_time()
    for g in app.graphs:
        previous = {}
        for t in range(g.timesteps):
            current = {}
            for i in rows(g, t):
                producers = g.dependencies(t, i)
                launch = tasks.setdefault(len(producers), point_task(len(producers)))
                current[i] = runtime.create_store(types.uint8, shape=(g.output_bytes,))
                launch(g.index, t, i, current[i], *[previous[j] for j in producers])
            previous = current
    runtime.issue_execution_fence(block=True)
    app.report(wall_time() - start)


if __name__ == "__main__":
    sys.exit(main())
