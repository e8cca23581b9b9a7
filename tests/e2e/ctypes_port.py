"""A foreign port of Task Bench through ctypes, as the original's Python ports did through cffi:
only libtaskbench.so and the original C API (core_c.h's declarations, written out here), no
nanobind and no taskbench package. Run by test_c_abi_ctypes.py:

    python ctypes_port.py LIBRARY VARIANT [FLAGS...]

VARIANT: scratch (task_graph_execute_point_scratch with the port's own prepared buffers),
scratch_auto, nonconst or scratch_nonconst; corrupt: scratch, with the first input of task
(2, 1) of every graph flipped, which the core must reject."""
from __future__ import annotations

import ctypes as C
import sys
import time


class Kernel(C.Structure):
    _fields_ = [("type", C.c_int), ("iterations", C.c_long), ("samples", C.c_int),
                ("imbalance", C.c_double)]


class TaskGraph(C.Structure):
    # The original's task_graph_t, field by field (112 bytes on x86-64).
    _fields_ = [("graph_index", C.c_long), ("timesteps", C.c_long), ("max_width", C.c_long),
                ("dependence", C.c_int), ("radix", C.c_long), ("period", C.c_long),
                ("fraction_connected", C.c_double), ("kernel", Kernel),
                ("output_bytes_per_task", C.c_size_t), ("scratch_bytes_per_task", C.c_size_t),
                ("nb_fields", C.c_int)]


class Interval(C.Structure):
    _fields_ = [("start", C.c_long), ("end", C.c_long)]


class Handle(C.Structure):  # interval_list_t, task_graph_list_t and app_t: { void *impl; }
    _fields_ = [("impl", C.c_void_p)]


def declare(lib: C.CDLL) -> None:
    G, L = TaskGraph, C.c_long
    char_p, char_pp = C.POINTER(C.c_char), C.POINTER(C.POINTER(C.c_char))
    i64_p, i64_pp = C.POINTER(C.c_int64), C.POINTER(C.POINTER(C.c_int64))
    size_p = C.POINTER(C.c_size_t)
    signatures = {
        "interval_list_destroy": (None, [Handle]),
        "interval_list_num_intervals": (L, [Handle]),
        "interval_list_interval": (Interval, [Handle, L]),
        "task_graph_offset_at_timestep": (L, [G, L]),
        "task_graph_width_at_timestep": (L, [G, L]),
        "task_graph_max_dependence_sets": (L, [G]),
        "task_graph_timestep_period": (L, [G]),
        "task_graph_dependence_set_at_timestep": (L, [G, L]),
        "task_graph_reverse_dependencies": (Handle, [G, L, L]),
        "task_graph_dependencies": (Handle, [G, L, L]),
        "task_graph_execute_point_scratch": (None, [G, L, L, char_p, C.c_size_t, char_pp, size_p,
                                                    C.c_size_t, char_p, C.c_size_t]),
        "task_graph_execute_point_scratch_auto": (None, [G, L, L, char_p, C.c_size_t, char_pp, size_p,
                                                         C.c_size_t, C.c_size_t]),
        "task_graph_execute_point_nonconst": (None, [G, L, L, i64_p, C.c_size_t, i64_pp, size_p,
                                                     C.c_size_t]),
        "task_graph_execute_point_scratch_nonconst": (None, [G, L, L, i64_p, C.c_size_t, i64_pp, size_p,
                                                             C.c_size_t, char_p, C.c_size_t]),
        "task_graph_prepare_scratch": (None, [char_p, C.c_size_t]),
        "task_graph_list_destroy": (None, [Handle]),
        "task_graph_list_num_task_graphs": (L, [Handle]),
        "task_graph_list_task_graph": (G, [Handle, L]),
        "app_create": (Handle, [C.c_int, C.POINTER(C.c_char_p)]),
        "app_destroy": (None, [Handle]),
        "app_task_graphs": (Handle, [Handle]),
        "app_verbose": (C.c_bool, [Handle]),
        "app_check": (None, [Handle]),
        "app_display": (None, [Handle]),
        "app_report_timing": (None, [Handle, C.c_double]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes


def inputs_of(lib: C.CDLL, g: TaskGraph, t: int, i: int) -> list[int]:
    """Points of row t-1 that task (t, i) reads, through the original's interval lists."""
    if t == 0:
        return []
    lo = lib.task_graph_offset_at_timestep(g, t - 1)
    hi = lo + lib.task_graph_width_at_timestep(g, t - 1) - 1
    deps = lib.task_graph_dependencies(g, lib.task_graph_dependence_set_at_timestep(g, t), i)
    points = []
    for k in range(lib.interval_list_num_intervals(deps)):
        interval = lib.interval_list_interval(deps, k)
        points += [j for j in range(interval.start, interval.end + 1) if lo <= j <= hi]
    lib.interval_list_destroy(deps)
    # Every dependency is matched by a reverse dependency of its producer, in row t's set.
    if points:
        dset = lib.task_graph_dependence_set_at_timestep(g, t)
        back = lib.task_graph_reverse_dependencies(g, dset, points[0])
        found = [lib.interval_list_interval(back, k) for k in range(lib.interval_list_num_intervals(back))]
        lib.interval_list_destroy(back)
        assert any(iv.start <= i <= iv.end for iv in found), (t, i, points[0])
    return points


def run_graph(lib: C.CDLL, g: TaskGraph, variant: str) -> None:
    out_bytes, scratch_bytes = g.output_bytes_per_task, g.scratch_bytes_per_task
    words = (out_bytes + 7) // 8
    rows = [[(C.c_int64 * words)() for _ in range(g.max_width)] for _ in range(2)]
    scratch = [C.create_string_buffer(max(scratch_bytes, 1)) for _ in range(g.max_width)]
    for buffer in scratch:
        lib.task_graph_prepare_scratch(C.cast(buffer, C.POINTER(C.c_char)), scratch_bytes)
    for t in range(g.timesteps):
        out, prev = rows[t % 2], rows[(t + 1) % 2]
        offset = lib.task_graph_offset_at_timestep(g, t)
        for i in range(offset, offset + lib.task_graph_width_at_timestep(g, t)):
            points = inputs_of(lib, g, t, i)
            n = len(points)
            sizes = (C.c_size_t * n)(*([out_bytes] * n))
            output = out[i]
            if variant in ("nonconst", "scratch_nonconst"):
                ins = (C.POINTER(C.c_int64) * n)(*[C.cast(prev[j], C.POINTER(C.c_int64)) for j in points])
                out_ptr = C.cast(output, C.POINTER(C.c_int64))
                if variant == "nonconst":
                    lib.task_graph_execute_point_nonconst(g, t, i, out_ptr, out_bytes, ins, sizes, n)
                else:
                    lib.task_graph_execute_point_scratch_nonconst(
                        g, t, i, out_ptr, out_bytes, ins, sizes, n,
                        C.cast(scratch[i], C.POINTER(C.c_char)), scratch_bytes)
                continue
            if variant == "corrupt" and t == 2 and i == 1 and n:
                prev[points[0]][0] ^= 1
            ins = (C.POINTER(C.c_char) * n)(*[C.cast(prev[j], C.POINTER(C.c_char)) for j in points])
            out_ptr = C.cast(output, C.POINTER(C.c_char))
            if variant == "scratch_auto":
                lib.task_graph_execute_point_scratch_auto(g, t, i, out_ptr, out_bytes, ins, sizes, n,
                                                          scratch_bytes)
            else:
                lib.task_graph_execute_point_scratch(g, t, i, out_ptr, out_bytes, ins, sizes, n,
                                                     C.cast(scratch[i], C.POINTER(C.c_char)), scratch_bytes)


def main() -> None:
    library, variant, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    assert C.sizeof(TaskGraph) == 112 and C.sizeof(Kernel) == 32, (C.sizeof(TaskGraph), C.sizeof(Kernel))
    lib = C.CDLL(library)
    declare(lib)
    argv = [b"ctypes_port", *(f.encode() for f in flags)]
    app = lib.app_create(len(argv), (C.c_char_p * len(argv))(*argv))
    lib.app_check(app)
    graphs = lib.app_task_graphs(app)
    start = time.perf_counter()
    for k in range(lib.task_graph_list_num_task_graphs(graphs)):
        run_graph(lib, lib.task_graph_list_task_graph(graphs, k), variant)
    lib.app_report_timing(app, time.perf_counter() - start)
    lib.task_graph_list_destroy(graphs)
    lib.app_destroy(app)


if __name__ == "__main__":
    main()
