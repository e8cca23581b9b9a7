"""How fast this machine's CPUs pass cache lines to each other, measured now.

Every fine-grained figure moves with it, and on a VM it changes while the VM runs: the host
moves the vCPUs, and on the development machine two of them took 15 ns one way when they
shared a physical core and 125-160 ns when they did not, minutes apart. So a METG campaign
measures it at its start and end (build/bench/bench_exchange_floor, 20 ms) and keeps both, and
once the no-runtime floor of its own graph at its own width: pinned threads, a block of columns
each, waiting on one flag per producer and running the core's execute_point, no runtime at all
(bench/exchange_floor.cc). A METG is read against it (docs/harness.md: how close to a bound).
"""

from __future__ import annotations

import subprocess

from taskbench import units
from taskbench.launch import tied
from taskbench.provenance import available_cores
from taskbench.registry.locations import Layout

PROBE = "bench_exchange_floor"
CHANGED_FACTOR = 2.0  # start and end this far apart: the placement changed during the campaign


def probe_path(layout: Layout):
    return layout.bin_dir.parent / "bench" / PROBE if layout.bin_dir else None


def one_way_ns(layout: Layout) -> tuple[float | None, str]:
    """(nanoseconds, "") or (None, why not)."""
    exe = probe_path(layout)
    if exe is None or not exe.exists():
        return None, f"{PROBE} is not built (it comes with the CMake build, in bench/)"
    if available_cores() < 2:
        return None, "fewer than 2 CPUs available"
    try:
        # Tied to the harness like every run: a SIGKILLed sweep leaves no probe spinning.
        proc = tied.popen([str(exe), "-steps", "20000", "-reps", "3"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        return None, f"{PROBE} did not run: {exc}"
    try:
        stdout, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired as exc:
        proc.kill()
        proc.communicate()
        return None, f"{PROBE} did not run: {exc}"
    for line in stdout.splitlines():
        if line.startswith("one-way cache line"):
            return float(line.split()[3]), ""
    return None, f"{PROBE} printed no latency (exit {proc.returncode})"


FLOOR_ROWS = "2000"  # rows per pass: tens of ms at 16 workers, best of 3 passes


def floor(layout: Layout, graph_flags: list[str], width: int) -> tuple[dict | None, str]:
    """The no-runtime floor of one graph (the sweep's, with the empty kernel) at `width` with
    a thread per column up to the available cores: ({"workers", "exchange_row_ns",
    "no_runtime_row_ns", "metg_lower_bound_seconds"}, "") or (None, why not)."""
    exe = probe_path(layout)
    if exe is None or not exe.exists():
        return None, f"{PROBE} is not built (it comes with the CMake build, in bench/)"
    workers = min(width, available_cores())
    if workers < 2:
        return None, "a floor needs 2 threads: fewer than 2 CPUs or columns"
    argv = [str(exe), "-workers", str(workers), "-reps", "3", "-steps", FLOOR_ROWS, *graph_flags,
            "-width", str(width), "-kernel", "empty"]
    try:
        proc = tied.popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, f"{PROBE} took over 60 s"
    except OSError as exc:
        return None, f"{PROBE} did not run: {exc}"
    figures = {}
    for line in stdout.splitlines():
        for label, key, scale in (("exchange per row", "exchange_row_ns", 1.0),
                                  ("no-runtime row", "no_runtime_row_ns", 1.0),
                                  ("METG(50%) lower bound", "metg_lower_bound_seconds", 1e-6)):
            if line.startswith(label):
                figures[key] = float(line[len(label):].split()[0]) * scale
    if len(figures) < 3:
        why = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}"
        return None, f"{PROBE} printed no floor ({why})"
    return {"workers": workers, "width": width, **figures}, ""


def describe(start: float | None, end: float | None) -> tuple[str, bool]:
    """A note for the console, and whether the two readings say the placement changed."""
    if start is None or end is None:
        return "", False
    changed = max(start, end) > CHANGED_FACTOR * min(start, end)
    return (f"a cache line took {start:.0f} ns one way between two CPUs at the start, "
            f"{end:.0f} ns at the end"), changed


def describe_floor(found: dict) -> str:
    return (f"no-runtime floor at width {found['width']} ({found['workers']} pinned threads): "
            f"{found['no_runtime_row_ns']:.0f} ns per row, METG(50%) {units.seconds(found['metg_lower_bound_seconds'])}")
