"""tensorflow: the paper's TensorFlow port's run (tensorflow/task_bench.py): the whole run as one
TensorFlow graph (a tf.function), one TaskbenchTask op (op.cc, a custom C++ op over the core)
per task, whose inputs are its producers' output tensors; TensorFlow's executor runs the ops on
-worker inter-op threads as their inputs become ready. Every task's output is fetched, as the
paper's port fetches them all. As there, the graph runs twice and the second run is timed: the
first call instantiates it (TensorFlow's passes, the executor, a kernel per op) and runs every
task once, untimed; its counts are reported and zeroed before the timed call. Tracing the
function (Python building the graph) is reported as system_report.startup, the two calls as
system_report.calls."""
import ctypes
import json
import os
import struct
import sys
from pathlib import Path

from taskbench.engine.app import MAX_WORKERS, App, Flag, available_cores, engine_version, import_engine, rows, wall_time

sys.path.insert(0, str(Path(__file__).resolve().parent))
from op_build import OpBuildError, library_path  # noqa: E402

# TensorFlow's start-up notices are not the run's. TF_CPP_MIN_LOG_LEVEL alone does not hold
# back the oneDNN notice, which absl prints before its logging is set up (with its own
# warning saying so); turning oneDNN's graph rewrites off does, and changes nothing here: the
# graph holds no TensorFlow math op for oneDNN to replace, only TaskbenchTask ops.
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}
tf = None  # imported by main() once the flags are parsed (taskbench.engine.app.import_engine)

DOUBLE_FIELDS = (6, 10)  # fraction_connected and imbalance in Graph.__getstate__()


def op_fields(graph) -> list[int]:
    """The graph's fields as the op's `graph` attr: int64s, doubles as their bit patterns."""
    fields = list(graph.__getstate__())
    for k in DOUBLE_FIELDS:
        fields[k] = struct.unpack("<q", struct.pack("<d", fields[k]))[0]
    fields[14] = struct.unpack("<q", struct.pack("<Q", fields[14]))[0]  # the unsigned seed
    return fields


def task_graph(ops, graphs):
    """A function that adds every task of every graph as an op and returns every op's output (so
    TensorFlow prunes none, and fetches each, as the paper's port fetches them all), and the list
    of their tasks (graph, t, i), filled as it is traced."""
    tasks = []

    def run_all(start):
        # `start` is every op's first input (see op.cc: without it, TensorFlow would run row 0
        # and everything after it as constants).
        outputs = []
        tasks.clear()
        for g in graphs:
            fields, previous = op_fields(g), {}
            for t in range(g.timesteps):
                current = {}
                for i in rows(g, t):
                    current[i] = ops.taskbench_task(start, [previous[j] for j in g.dependencies(t, i)],
                                                    graph=fields, t=t, i=i, output_bytes=g.output_bytes)
                    outputs.append(current[i])
                    tasks.append((g, t, i))
                previous = current
        return outputs
    return run_all, tasks


def unread(tasks):
    """Positions, among the outputs, of the tasks no task reads: the outputs the core checks."""
    return [k for k, (g, t, i) in enumerate(tasks) if t + 1 == g.timesteps or not g.successors(t, i)]


def load_op():
    """The op library (built at the first run) and its C entry points; exit 4 if it cannot build."""
    try:
        path = library_path(tf)
    except OpBuildError as exc:
        sys.stderr.write(f"taskbench: {exc}\n")
        sys.exit(4)
    ops = tf.load_op_library(str(path))
    entry = ctypes.CDLL(str(path))  # the same loaded library: its copy of the core
    entry.taskbench_tf_setup.restype = ctypes.c_bool
    entry.taskbench_tf_executed.restype = ctypes.c_longlong
    entry.taskbench_tf_executed.argtypes = [ctypes.c_long]
    entry.taskbench_tf_reset.restype = None
    entry.taskbench_tf_kernels_constructed.restype = ctypes.c_longlong
    if not entry.taskbench_tf_setup():
        sys.stderr.write(f"taskbench: TASKBENCH_FAULT: invalid value '{os.environ.get('TASKBENCH_FAULT')}'\n")
        sys.exit(2)
    return ops, entry


def main() -> None:
    app = App([Flag("-worker", "N", "TensorFlow inter-op threads: tasks run at once (default: cores)", 1,
                    MAX_WORKERS)], version=engine_version("tensorflow"))
    global tf
    tf = import_engine("tensorflow", "tensorflow", app, QUIET)
    threads = app.flag("-worker", available_cores())
    # One task per inter-op thread; a kernel is one thread (the core's), as in every system.
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    # Grappler would fold the ops of row 0 (no inputs) as constants, running them while it
    # optimises: each op is a task that must run exactly once per call, in the executor.
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    ops, entry = load_op()
    app.set_parallelism(1, threads)
    started = wall_time()
    start_signal = tf.zeros([0], tf.uint8)
    run_all, tasks = task_graph(ops, app.graphs)
    function = tf.function(run_all).get_concrete_function(start_signal)
    app.add_report_json("startup", json.dumps({"seconds": wall_time() - started,
                                               "what": "tracing the tf.function (the graph built in Python)"}))
    app.display()
    calls = []

    def call(timed: bool):
        """One call of the whole graph, on the clock; what it ran and built goes to `calls`."""
        kernels = entry.taskbench_tf_kernels_constructed()
        start = wall_time()
        outputs = function(start_signal)
        elapsed = wall_time() - start
        calls.append({"timed": timed, "seconds": elapsed,
                      "tasks": sum(entry.taskbench_tf_executed(g.index) for g in app.graphs),
                      "kernels_constructed": entry.taskbench_tf_kernels_constructed() - kernels})
        return elapsed, outputs

    # As the paper's port, whose second sess.run is timed: the first call instantiates the graph
    # and runs every task; its counts are zeroed so that the report counts the timed call's.
    call(timed=False)
    entry.taskbench_tf_reset()
    elapsed, outputs = call(timed=True)
    for k in unread(tasks):  # converted after the clock, checked by the driver's core
        g, t, i = tasks[k]
        g.check_unread_output(t, i, outputs[k].numpy())
    del outputs
    calls[0]["what"] = "untimed: TensorFlow instantiates the graph, then runs every task"
    calls[1]["what"] = "timed: the instantiated graph, every task again, every output fetched"
    app.add_report_json("calls", json.dumps(calls))
    app.report(elapsed, [entry.taskbench_tf_executed(g.index) for g in app.graphs])


if __name__ == "__main__":
    main()
