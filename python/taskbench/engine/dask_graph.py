"""The Dask task graph of a run, shared by the dask_threaded and dask_distributed systems: built
once and handed to a Dask scheduler whole (no compute per task); dask_threaded builds it before
its timed region, dask_distributed inside it, as the paper's port does.

Task (t, i) of graph g is the key ("task-g", t, i), computed by run_task(graph, t, i, *inputs);
its inputs are the keys of its producers in row t-1 (Graph.dependencies, in the order the core
validates), so Dask itself moves each output to its consumers and frees it after the last one."""

from taskbench.engine.app import run_task


def key(g, t: int, i: int) -> tuple:
    return (f"task-{g.index}", t, i)


def task_graph(graphs) -> tuple[dict, list]:
    """The Dask graph of every task (legacy tuple form: (callable, *args), keys as args are
    replaced by their values), and the keys of tasks no other task reads (the least a run must
    ask for so that Dask runs everything, and the outputs the core checks at the end)."""
    dsk, leaves = {}, []
    for g in graphs:
        for t in range(g.timesteps):
            for i in range(g.offset(t), g.offset(t) + g.width(t)):
                dsk[key(g, t, i)] = (run_task, g, t, i, *[key(g, t - 1, j) for j in g.dependencies(t, i)])
                if t + 1 == g.timesteps or not g.successors(t, i):
                    leaves.append(key(g, t, i))
    return dsk, leaves


def check_leaves(graphs, leaves: list, outputs) -> None:
    """After the run: the outputs no task read, as they reached the driver, to the core's check
    (which the report requires of every last-timestep output)."""
    by_index = {g.index: g for g in graphs}
    for (name, t, i), output in zip(leaves, outputs, strict=True):
        by_index[int(name.removeprefix("task-"))].check_unread_output(t, i, output)
