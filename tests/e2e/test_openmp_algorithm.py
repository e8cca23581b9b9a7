"""openmp_task and openmp_task_llvm run the Task Bench paper's OpenMP task algorithm (the
original's openmp/main.cc), seen from the runtime's side: tests/openmp/log_omp_calls.c,
preloaded, logs every task the program creates with its depend addresses, and every barrier.

- one thread creates every task of the run, graph after graph, row after row, point after
  point, before it meets a barrier; each thread meets one barrier in the run;
- each column has the graph's -field buffers F, row t writing buffer t mod F (one out/inout
  address a task), so a task's buffer is the one its column wrote F rows before;
- a task's `in` addresses are its producers' buffers of row t-1, nothing else.

-window (this work's design) is told apart: a barrier per window of 64 tasks per thread.
The producers are counted here from docs/spec.md's definitions of the patterns."""
from __future__ import annotations

import pytest

from systems import BUILD, built_systems, local_systems, run

LOGGER = BUILD / "tests" / "openmp" / "liblog_omp_calls.so"
BY_NAME = {s.name: s for s in local_systems()}
BUILT = set(built_systems())
PAPER = ["openmp_task", "openmp_task_llvm"]
THREADS = 2
# (pattern, steps, width, fields): 160 + 45 tasks, more than a team of 2 holds in one window
# (128) and more than libgomp defers (64 per thread); graph 1 with 3 fields.
GRAPHS = [("stencil_1d", 40, 4, 2), ("nearest", 9, 5, 3)]
RADIX = 5


def producers(pattern: str, width: int, i: int) -> list[int]:
    """docs/spec.md §1: the points of the row before that task i reads."""
    if pattern == "stencil_1d":
        points = range(i - 1, i + 2)
    elif pattern == "nearest":
        points = range(i - RADIX // 2, i + (RADIX - 1) // 2 + 1)
    else:
        raise ValueError(pattern)
    return [j for j in points if 0 <= j < width]


def line() -> list[str]:
    args = []
    for k, (pattern, steps, width, fields) in enumerate(GRAPHS):
        args += (["-and"] if k else []) + ["-type", pattern, "-steps", str(steps), "-width", str(width),
                                           "-field", str(fields)]
        args += ["-radix", str(RADIX)] if pattern == "nearest" else []
    return args


def logged_run(name: str, args: list[str], tmp_path):
    """[("task", tid, out_addresses, in_addresses) or ("barrier", tid, (), ())] in call order."""
    s = BY_NAME.get(name)
    if s is None or s.binary.name not in BUILT or not s.binary.exists():
        pytest.skip(f"{name} is not built")
    if not LOGGER.exists():
        pytest.skip(f"{LOGGER} is not built")
    log = tmp_path / "omp.log"
    got = run(s, ["-worker", str(THREADS), *args],
              extra_env={"LD_PRELOAD": str(LOGGER), "TASKBENCH_OMP_LOG": str(log)})
    assert got.returncode == 0, got.stderr
    calls = []
    for words in (text.split() for text in log.read_text().splitlines()):
        if words[0] == "barrier":
            calls.append(("barrier", words[1], (), ()))
        else:
            at = words.index("in")
            calls.append(("task", words[1], tuple(words[3:at]), tuple(words[at + 1:])))
    return calls


@pytest.mark.parametrize("name", PAPER)
def test_one_thread_creates_every_task_before_the_one_barrier(name, tmp_path):
    calls = logged_run(name, line(), tmp_path)
    tasks = [c for c in calls if c[0] == "task"]
    assert len(tasks) == sum(steps * width for _, steps, width, _ in GRAPHS)
    creators = {c[1] for c in tasks}
    assert len(creators) == 1
    barriers = [n for n, c in enumerate(calls) if c[0] == "barrier"]
    assert len(barriers) == THREADS and len({calls[n][1] for n in barriers}) == THREADS
    creator_barrier = next(n for n in barriers if calls[n][1] in creators)
    assert creator_barrier > max(n for n, c in enumerate(calls) if c[0] == "task")


@pytest.mark.parametrize("name", PAPER)
def test_inout_on_the_graphs_fields_in_on_the_producers(name, tmp_path):
    tasks = iter([c for c in logged_run(name, line(), tmp_path) if c[0] == "task"])
    seen_by_graph = []
    for pattern, steps, width, fields in GRAPHS:
        # graph after graph, row after row: the creation order is the graph's own
        written = {}
        for t in range(steps):
            for i in range(width):
                _, _, out, into = next(tasks)
                assert len(out) == 1, (t, i, out)
                written[t, i] = out[0]
                want = set() if t == 0 else {written[t - 1, j] for j in producers(pattern, width, i)}
                assert set(into) == want and len(into) == len(want), (pattern, t, i)
        for (t, i), address in written.items():
            if t >= fields:
                assert address == written[t - fields, i], (pattern, t, i)  # buffer t mod F
        assert len(set(written.values())) == fields * width
        seen_by_graph.append(set(written.values()))
    assert not seen_by_graph[0] & seen_by_graph[1]


@pytest.mark.parametrize("name", PAPER)
def test_window_mode_has_a_barrier_per_window(name, tmp_path):
    calls = logged_run(name, ["-window", *line()], tmp_path)
    tasks = sum(1 for c in calls if c[0] == "task")
    windows = -(-tasks // (64 * THREADS))
    assert windows == 2
    assert sum(1 for c in calls if c[0] == "barrier") == windows * THREADS
