"""legate: Legion through the legate package, every task a legate task launch whose stores
Legion's dependence analysis orders: task (t, i) writes the store of point i for row t
(OutputStore) and reads the stores of its producers in row t-1 (InputStore), so the runtime,
not this script, finds which launches wait for which. legate runs -worker CPU processors (one
per core) in this process; its PyPI wheel is a CUDA build, so the NVIDIA driver is loaded first:
the machine's libcuda.so.1, or where the build found none, the stand-in it built
(cmake/LegionWheel.cmake; README.md)."""
import ctypes
import importlib.util
import inspect
import os
import sys
from pathlib import Path

import numpy as np

from taskbench.engine.app import (App, Flag, available_cores, engine_version, import_engine, rows,
                                  wall_time)

GRAPHS = []  # the run's graphs: legate's CPU tasks run in this process and read them here
# Without -v: Realm's loggers (Legion's and legate's among them) at their "fatal only" level, so
# Realm's start-up warnings (no CUDA device, core reservations) stay off stderr; legate's own
# errors are printed by legate whatever this says (taskbench.engine.app.import_engine).
QUIET = {"REALM_DEFAULT_ARGS": "-level 6"}
STANDIN = Path(sys.argv[0]).resolve().parent.parent / "cuda-standin" / "libcuda.so.1"
# The wheel's Legion holds at most LEGION_MAX_NUM_PROCS (64, legion_defines.h) processors per
# process, the utility processor included; beyond, it aborts as it starts.
MAX_CPUS = 64 - 1


def load_driver() -> None:
    """The driver libraries legate's wheel links, loaded by path before it: later lookups of the
    same sonames find these. The stand-in exists only where the build found no libcuda.so.1
    (bin/../cuda-standin, in the build tree and installed alike); libcudart.so.13 (needed by
    legate's HDF5 driver) from nvidia-cuda-runtime, when the system has none of its own."""
    if STANDIN.exists():
        ctypes.CDLL(str(STANDIN), mode=ctypes.RTLD_GLOBAL)
    nvidia = importlib.util.find_spec("nvidia")
    for folder in (nvidia.submodule_search_locations if nvidia else []):
        cudart = Path(folder) / "cu13" / "lib" / "libcudart.so.13"
        if cudart.exists():
            ctypes.CDLL(str(cudart), mode=ctypes.RTLD_GLOBAL)
            return


def point_task(inputs: int):
    """The legate task for a task with `inputs` producers: a signature legate's decorator reads
    (graph, t, i as scalars, the output store, then one InputStore per producer). legate calls
    it with keyword arguments, one per parameter. Every store is broadcast: legate would
    otherwise split a large store's launch into several point tasks, each on a slice."""
    from legate.core import broadcast
    from legate.core.task import InputStore, OutputStore, task
    names = [f"input{k}" for k in range(inputs)]
    parameters = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a)
                  for n, a in (("graph", int), ("t", int), ("i", int), ("output", OutputStore))]
    parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=InputStore)
                   for n in names]

    def body(**stores) -> None:
        g = GRAPHS[stores["graph"]]
        buffers = [np.asarray(stores[n].get_inline_allocation()) for n in names]
        g.execute(stores["t"], stores["i"], np.asarray(stores["output"].get_inline_allocation()), buffers)
    body.__name__ = body.__qualname__ = f"taskbench_point_{inputs}"
    body.__signature__ = inspect.Signature(parameters, return_annotation=None)
    body.__annotations__ = {p.name: p.annotation for p in parameters}
    return task(constraints=[broadcast("output", *names)])(body)


def main() -> None:
    app = App([Flag("-worker", "N", f"legate CPU processors, one thread each (default: cores, at most {MAX_CPUS})",
                    1, MAX_CPUS)],
              version=engine_version("legate"))
    workers = app.flag("-worker", min(available_cores(), MAX_CPUS))
    # Sized for two rows of every graph's outputs (Legion frees a store once no launch uses it).
    needed = sum(2 * g.max_width * g.output_bytes for g in app.graphs) >> 20
    os.environ["LEGATE_AUTO_CONFIG"] = "0"  # its probe of the machine asks the CUDA driver for GPUs
    os.environ["LEGATE_CONFIG"] = (f"--cpus {workers} --gpus 0 --omps 0 --utility 1 "
                                   f"--sysmem {max(256, 4 * needed)}")
    load_driver()
    import_engine("legate.core", "legion", app, QUIET)
    from legate.core import get_legate_runtime, types

    runtime = get_legate_runtime()
    app.set_parallelism(1, workers)
    app.display()
    GRAPHS.extend(app.graphs)
    try:
        run(runtime, app, types)
    finally:
        # legate ends its runtime at exit, after which nothing may hold the core's objects.
        GRAPHS.clear()


def run(runtime, app: App, types) -> None:
    tasks = {}
    last_rows = []  # (graph, {point: store}) of each graph's last row
    start = wall_time()
    for g in app.graphs:
        previous = {}
        for t in range(g.timesteps):
            current = {}
            for i in rows(g, t):
                producers = g.dependencies(t, i)
                if len(producers) not in tasks:
                    tasks[len(producers)] = point_task(len(producers))
                current[i] = runtime.create_store(types.uint8, shape=(g.output_bytes,))
                tasks[len(producers)](g.index, t, i, current[i], *[previous[j] for j in producers])
            previous = current
        last_rows.append((g, previous))
    runtime.issue_execution_fence(block=True)
    elapsed = wall_time() - start
    for g, stores in last_rows:  # mapped in this process, as legate holds them
        for i, store in stores.items():
            g.check_unread_output(g.timesteps - 1, i, np.asarray(store.get_physical_store()))
    app.report(elapsed)


if __name__ == "__main__":
    sys.exit(main())
