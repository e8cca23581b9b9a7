"""How fast two of this machine's CPUs pass a cache line to each other, measured now.

Every fine-grained figure moves with it, and on a VM it changes while the VM runs: the host
moves the vCPUs, and on the development machine two of them took 15 ns one way when they
shared a physical core and 125-160 ns when they did not, minutes apart. So a METG campaign
measures it at its start and end (build/bench/bench_exchange_floor, 20 ms) and keeps both.
"""

from __future__ import annotations

import subprocess

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
        proc = tied.popen([str(exe), "20000", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
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


def describe(start: float | None, end: float | None) -> tuple[str, bool]:
    """A note for the console, and whether the two readings say the placement changed."""
    if start is None or end is None:
        return "", False
    changed = max(start, end) > CHANGED_FACTOR * min(start, end)
    return (f"a cache line took {start:.0f} ns one way between two CPUs at the start, "
            f"{end:.0f} ns at the end"), changed
