"""What a command line the core accepted will cost to run, estimated conservatively, so that the
flag fuzz test (test_fuzz_flags.py) runs only lines that finish in a blink and a timeout really
means a hang: a valid line such as -steps 1152921504606846976 legitimately runs for ever.

The parse below follows docs/spec.md §4 for lines the core has already accepted (the test asks the
system itself first, with -h appended), so every flag has its value right after it."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

# A line runs when its estimate is below both: about 20 ms of work in a release build, and a
# little memory (the systems allocate two rows of outputs and a scratch per point).
WORK_BUDGET = 2e7
MEMORY_BUDGET = 64 << 20


@dataclass
class Graph:
    steps: int = 4
    width: int = 4
    type: str = "trivial"
    radix: int = 3
    period: int = 3
    fraction: float = 0.25
    kernel: str = "empty"
    iter: int = 0
    output: int = 16
    scratch: int = 0
    sample: int = 16
    imbalance: float = 0.0


@dataclass
class Run:
    graphs: list[Graph]
    system_values: dict[str, int] = field(default_factory=dict)
    verbose: int = 0
    skip_check: bool = False
    trace: bool = False
    help: bool = False


INT_FLAGS = {"-steps": "steps", "-width": "width", "-radix": "radix", "-period": "period", "-iter": "iter",
             "-output": "output", "-scratch": "scratch", "-sample": "sample", "-field": None, "-seed": None}
FLOAT_FLAGS = {"-fraction": "fraction", "-imbalance": "imbalance"}


def parse_accepted(args: list[bytes], system_flags: dict[str, bool], default_width: int) -> Run:
    """The graphs and run options of a line the core accepted."""
    run = Run([Graph(width=default_width)])
    k = 0
    while k < len(args):
        flag = os.fsdecode(args[k])  # file names may hold bytes that are not UTF-8
        value = os.fsdecode(args[k + 1]) if k + 1 < len(args) else ""
        k += 1
        g = run.graphs[-1]
        if flag == "-and":
            run.graphs.append(Graph(width=default_width))
        elif flag in INT_FLAGS:
            if INT_FLAGS[flag]:
                setattr(g, INT_FLAGS[flag], int(value))
            k += 1
        elif flag in FLOAT_FLAGS:
            setattr(g, FLOAT_FLAGS[flag], float(value))
            k += 1
        elif flag in ("-type", "-kernel"):
            setattr(g, flag[1:], value)
            k += 1
        elif flag in ("-nodes", "-json"):
            k += 1
        elif flag == "-trace":
            run.trace = True
            k += 1
        elif flag in ("-v", "-vv"):
            run.verbose = max(run.verbose, len(flag) - 1)
        elif flag == "-skip-graph-validation":
            run.skip_check = True
        elif flag in ("-h", "-help", "--help"):
            run.help = True
        elif flag in system_flags:
            run.system_values[flag] = int(value) if system_flags[flag] else 1
            k += 1 if system_flags[flag] else 0
        else:
            raise ValueError(f"not an accepted line: {flag!r}")
    return run


def row_widths(g: Graph) -> int:
    """Exact task count of a graph (docs/spec.md §1 shapes), for lines cheap enough to run."""
    if g.type == "dom":
        return sum(min(g.width, t + 1, g.steps - t) for t in range(g.steps))
    if g.type == "tree":
        return sum(min(g.width, 1 << min(t, 62)) for t in range(g.steps))
    return g.steps * g.width


def dependencies_per_task(g: Graph) -> int:
    fixed = {"trivial": 0, "no_comm": 1, "tree": 1, "dom": 2, "stencil_1d": 3, "stencil_1d_periodic": 3,
             "fft": 3, "all_to_all": g.width}
    return min(fixed.get(g.type, g.radix), g.width)


def kernel_work(g: Graph) -> float:
    """Per-task kernel work in rough nanoseconds (generous: ASan builds are slower)."""
    its = g.iter * (1 + g.imbalance / 2) if g.kernel == "load_imbalance" else g.iter
    if g.kernel in ("memory_bound", "memory_daxpy"):
        return g.scratch * its / max(1, g.sample) + g.scratch
    if g.kernel == "compute_dgemm":
        n = math.isqrt(g.scratch // 24)
        return (2 * n ** 3 + 20000) * its + g.scratch
    per_iteration = {"empty": 0, "busy_wait": 2, "compute_bound": 30, "compute_bound2": 15,
                     "load_imbalance": 30, "io_bound": 200000}
    return per_iteration.get(g.kernel, 200000) * its


def estimate(run: Run, workers_default: int) -> tuple[float, int]:
    """(work, bytes) of running the line: tasks x (overhead, kernel, inputs validated, queries),
    the up-front graph check, -vv printing, tracing, threads; bytes for buffers and task graphs."""
    work, memory = 0.0, 0
    for g in run.graphs:
        tasks = g.steps * g.width  # an upper bound for dom and tree
        deps = dependencies_per_task(g)
        query = g.radix if g.type in ("spread", "random_spread", "random_nearest") else 1
        per_task = 3000 + kernel_work(g) + 2 * g.output * (deps + 1) + 200 * deps + 50 * query
        work += tasks * per_task
        if not run.skip_check:
            work += tasks * (deps + 1) * (query + 5) * 40
        if run.verbose >= 2:
            work += tasks * (query + 1) * 200
        if run.trace:
            work += tasks * 1000
        stride = (g.output + 127) // 128 * 128
        memory += g.width * (2 * stride + g.scratch) + tasks * (deps + 1) * 64
    workers = run.system_values.get("-worker", workers_default)
    steps = max(g.steps for g in run.graphs)
    work += workers * 500000 + steps * workers * workers * 20000  # threads, and a barrier per step
    return work + memory, memory


def cheap(run: Run) -> bool:
    work, memory = estimate(run, max(4, os.cpu_count() or 1))
    return work <= WORK_BUDGET and memory <= MEMORY_BUDGET
