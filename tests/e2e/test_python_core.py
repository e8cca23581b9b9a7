"""taskbench._core, the core's Python binding: buffers without copies, the GIL released while
a kernel runs, graphs that pickle, the core's validation and exit statuses."""
from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import time

import pytest

from systems import BUILD, ROOT

CORE_DIR = BUILD / "python" / "taskbench"
if not any(CORE_DIR.glob("_core*.so")):
    pytest.skip(f"taskbench._core is not built in {BUILD} (PYTHON component off)", allow_module_level=True)

sys.path.insert(0, str(ROOT / "python"))
import taskbench  # noqa: E402

if str(CORE_DIR) not in taskbench.__path__:
    taskbench.__path__.append(str(CORE_DIR))
from taskbench import _core  # noqa: E402
from taskbench.engine.app import App, run_task  # noqa: E402

np = pytest.importorskip("numpy")


def graphs(*args: str) -> list:
    return App(argv=["test", *args]).graphs


def test_graph_queries_match_the_pattern():
    g = graphs("-steps", "4", "-width", "5", "-type", "stencil_1d")[0]
    assert (g.timesteps, g.max_width, g.output_bytes, g.pattern) == (4, 5, 16, "stencil_1d")
    assert g.dependencies(0, 2) == []
    assert g.dependencies(1, 0) == [0, 1] and g.dependencies(1, 2) == [1, 2, 3]
    assert g.successors(1, 4) == [3, 4]
    dom = graphs("-steps", "6", "-width", "3", "-type", "dom")[0]
    assert [(dom.offset(t), dom.width(t)) for t in range(6)] == [(0, 1), (0, 2), (0, 3), (0, 3), (1, 2), (2, 1)]


def test_execute_writes_in_place_into_numpy_bytearray_and_memoryview():
    g = graphs("-steps", "2", "-width", "3", "-type", "stencil_1d", "-output", "32")[0]
    row0 = [np.zeros(32, np.uint8), bytearray(32), memoryview(bytearray(32))]
    for i, out in enumerate(row0):
        g.execute(0, i, out, [])
    # The identity (t, i) as two int64, twice: written into the caller's own memory.
    assert np.frombuffer(row0[0], np.int64).tolist() == [0, 0, 0, 0]
    assert np.frombuffer(row0[2], np.int64).tolist() == [0, 2, 0, 2]
    out = np.full(32, 255, np.uint8)
    g.execute(1, 1, out, (row0[0], bytes(row0[1]), row0[2]))  # read-only inputs are fine
    assert np.frombuffer(out, np.int64).tolist() == [1, 1, 1, 1]
    assert bytes(run_task(g, 1, 0, row0[0], row0[1])) == bytes(np.array([1, 0, 1, 0], np.int64))


def test_execute_rejects_what_is_not_a_buffer():
    g = graphs("-steps", "2", "-width", "2")[0]
    with pytest.raises(BufferError):
        g.execute(0, 0, bytes(16), [])  # not writable
    with pytest.raises(TypeError):
        g.execute(0, 0, bytearray(16), [3])
    with pytest.raises(TypeError):
        g.execute(0, 0, bytearray(16), 7)


def test_graph_pickles_as_its_fields():
    g = graphs("-steps", "5", "-width", "6", "-type", "random_spread", "-fraction", "0.5", "-radix", "4",
               "-period", "2", "-kernel", "load_imbalance", "-iter", "9", "-imbalance", "1.5", "-seed", "7",
               "-and", "-type", "fft", "-output", "100", "-scratch", "64")[1:]
    for a in graphs("-steps", "5", "-width", "6", "-type", "random_spread", "-fraction", "0.5",
                    "-radix", "4", "-period", "2", "-kernel", "load_imbalance", "-iter", "9",
                    "-imbalance", "1.5", "-seed", "7") + g:
        b = pickle.loads(pickle.dumps(a))
        assert b.describe() == a.describe() and b.index == a.index
        assert all(b.dependencies(t, i) == a.dependencies(t, i)
                   for t in range(a.timesteps) for i in range(a.max_width))


def test_kernel_runs_without_the_gil():
    """The main thread gets the GIL while another thread's kernel still runs. With a switch
    interval far longer than the kernel, Python never takes the GIL from a thread by force: the
    main thread can run before the kernel ends only if execute() let go of the GIL. A busy
    machine delays the main thread, never makes it run early, so the test cannot pass falsely,
    and the 0.3 s kernel leaves it ample time to be scheduled."""
    g = graphs("-steps", "1", "-width", "1", "-kernel", "busy_wait", "-iter", "400000000")[0]
    entering, times = threading.Event(), {}

    def task():
        entering.set()  # the main thread wakes, but needs the GIL that this thread holds
        g.execute(0, 0, bytearray(16), [])
        times["kernel_end"] = time.perf_counter()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        worker = threading.Thread(target=task)
        worker.start()
        entering.wait()
        times["main_ran"] = time.perf_counter()
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert times["main_ran"] < times["kernel_end"]


def run_python(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os
    prelude = (f"import sys; sys.path.insert(0, {str(ROOT / 'python')!r}); import taskbench; "
               f"taskbench.__path__.append({str(CORE_DIR)!r})\n")
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_a_wrong_input_ends_the_process_with_status_3():
    got = run_python("from taskbench.engine.app import App\n"
                     "g = App(argv=['x', '-type', 'no_comm']).graphs[0]\n"
                     "out = bytearray(16); g.execute(0, 1, out, [])\n"
                     "g.execute(1, 0, bytearray(16), [out])\n")
    assert got.returncode == 3, got.stderr
    assert "taskbench: validation failed: graph 0, task (t=1, i=0)" in got.stderr


def test_missing_task_fails_the_report():
    got = run_python("from taskbench.engine.app import App, run_task\n"
                     "app = App(argv=['x', '-steps', '1', '-width', '2'])\n"
                     "run_task(app.graphs[0], 0, 0)\n"
                     "app.report(0.1)\n")
    assert got.returncode == 3
    assert "graph 0 executed 1 tasks, expected 2" in got.stderr


def test_worker_counts_and_fault_from_the_environment():
    got = run_python("from taskbench import _core\nfrom taskbench.engine.app import App, run_task\n"
                     "g = App(argv=['x', '-steps', '2', '-width', '2', '-type', 'no_comm']).graphs[0]\n"
                     "_core.reset_counts(); _core.worker_setup()\n"
                     "out = run_task(g, 0, 0); print(_core.executed_counts(2))\n"
                     "run_task(g, 1, 0, out)\n",
                     {"TASKBENCH_FAULT": "corrupt:0,0,0"})
    assert got.stdout.strip() == "[1, 0]"
    assert got.returncode == 3 and "expected the output of (t=0, i=0)" in got.stderr
    bad = run_python("from taskbench import _core\n_core.worker_setup()\n", {"TASKBENCH_FAULT": "oops"})
    assert bad.returncode == 1 and "ValueError: TASKBENCH_FAULT: invalid value 'oops'" in bad.stderr
