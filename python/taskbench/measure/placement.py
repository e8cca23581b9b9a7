"""How fast this machine's CPUs pass cache lines to each other, and the no-runtime floor of a
campaign's graph, measured beside its runs.

Every fine-grained figure moves with that latency, and on a VM it changes while the VM runs: the
host moves the vCPUs, and on the development machine two of them took 15-60 ns one way when they
shared a physical core and 125-205 ns when they did not, seconds to minutes apart. So a METG
campaign runs a short probe (build/bench/bench_exchange_floor, about 20 ms) about once a second
between its runs: each probe gives the one-way latency of a cache line between two pinned threads
and the no-runtime floor of the campaign's own graph at its own width (pinned threads, a block of
columns each, waiting on one flag per producer and running the core's execute_point, no runtime
at all: bench/exchange_floor.cc). The probes say which placement each run ran under (the probes
around it), and their minimum is the floor, measured as the systems run, in the same minutes.
"""

from __future__ import annotations

import bisect
import itertools
import subprocess
from dataclasses import dataclass

import numpy as np

from taskbench import units
from taskbench.process import tied
from taskbench.provenance import available_cores
from taskbench.registry.locations import Layout

PROBE = "bench_exchange_floor"
CHANGED_FACTOR = 2.0  # probes this far apart: the CPUs' placement changed
MIN_PROBES = 2  # in a row, for a placement to be one (a single odd probe is noise, not a move)
PROBE_ROWS, PROBE_REPS = "2000", "2"  # about 20 ms at width 2, tens of ms at 16 workers
PROBE_EVERY_SECONDS = 1.0  # of the sweep's runs between two probes
NEAR, FAR = "near cores", "far cores"


FIGURES = (("one-way cache line", "one_way_ns", 1.0), ("exchange per row", "exchange_row_ns", 1.0),
           ("no-runtime row", "no_runtime_row_ns", 1.0), ("METG(50%) lower bound", "metg_lower_bound_seconds", 1e-6))


def probe(layout: Layout, graph_flags: list[str], width: int) -> tuple[dict | None, str]:
    """One probe of the graph (the sweep's, with the empty kernel) at `width` with a pinned thread
    per column up to the available cores: ({"workers", "width", "one_way_ns", "exchange_row_ns",
    "no_runtime_row_ns", "metg_lower_bound_seconds"}, "") or (None, why not)."""
    exe = layout.bin_dir.parent / "bench" / PROBE if layout.bin_dir else None
    if exe is None or not exe.exists():
        return None, f"{PROBE} is not built (it comes with the CMake build, in bench/)"
    workers = min(width, available_cores())
    if workers < 2:
        return None, "a probe needs 2 threads: fewer than 2 CPUs or columns"
    argv = [str(exe), "-workers", str(workers), "-reps", PROBE_REPS, "-steps", PROBE_ROWS, *graph_flags,
            "-width", str(width), "-kernel", "empty"]
    try:
        # Tied to the harness like every run: a SIGKILLed sweep leaves no probe spinning.
        proc = tied.popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, f"{PROBE} took over 60 s"
    except OSError as exc:
        return None, f"{PROBE} did not run: {exc}"
    found = {}
    for line in stdout.splitlines():
        for label, key, scale in FIGURES:
            if line.startswith(label):
                found[key] = float(line[len(label):].split()[0]) * scale
    if len(found) < len(FIGURES):
        why = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}"
        return None, f"{PROBE} printed no floor ({why})"
    return {"workers": workers, "width": width, **found}, ""


@dataclass(frozen=True)
class Placements:
    """The placements a campaign's probes saw: a label per probe (None: one placement only)."""
    labels: list[str | None]
    ranges: dict[str, tuple[float, float]]  # label: (lowest, highest) one-way ns

    @property
    def changed(self) -> bool:
        return len(self.ranges) > 1


def placements(probes: list[dict]) -> Placements:
    """Two placements where the probes fall in two groups whose medians are more than
    CHANGED_FACTOR apart (split where the log latencies spread least within the two), each seen in
    MIN_PROBES probes in a row at least: a placement lasts, where a probe that a busy machine
    preempted is one slow reading among quick ones. Such a lone probe is no placement (label
    None); with one group, every label is None."""
    ns = [p["one_way_ns"] for p in probes]
    none = Placements([None] * len(ns), {})
    if len(ns) < 2 * MIN_PROBES or min(ns) <= 0:
        return none
    # The two groups: the split of the sorted log latencies with the least spread within them.
    ordered = sorted(ns)
    logs = np.log(ordered)
    spread = [np.var(logs[:k]) * k + np.var(logs[k:]) * (len(logs) - k) for k in range(1, len(logs))]
    cut = ordered[int(np.argmin(spread))]  # the highest of the lower group
    low, high = [x for x in ns if x <= cut], [x for x in ns if x > cut]
    if np.median(high) <= CHANGED_FACTOR * np.median(low):
        return none
    side = [NEAR if x <= cut else FAR for x in ns]
    # A probe belongs to its placement where it is one of MIN_PROBES or more of it in a row.
    lasting: list[str | None] = []
    for label, group in itertools.groupby(side):
        count = len(list(group))
        lasting += [label if count >= MIN_PROBES else None] * count
    if {NEAR, FAR} - set(lasting):
        return none
    ranges = {label: (min(x for x, at in zip(ns, lasting) if at == label),
                      max(x for x, at in zip(ns, lasting) if at == label)) for label in (NEAR, FAR)}
    return Placements(lasting, ranges)


def around(run_id: int | None, probes: list[dict]) -> list[int]:
    """The indices of the probes just before and after a stored run, by run id: one or two;
    none for a run that is not stored."""
    if run_id is None:
        return []
    # Probes are stored in order, each after the runs before it: their run ids never decrease.
    first_after = bisect.bisect_left(probes, run_id, key=lambda p: p["after_run_id"])
    return [k for k in (first_after - 1, first_after) if 0 <= k < len(probes)]


def tag(run_id: int | None, probes: list[dict], labels: list[str | None]) -> str | None:
    """The placement a stored run ran under: that of the probes just before and after it (by run
    id), when they agree; None where they differ (it moved meanwhile) or the run is not stored."""
    found = {labels[k] for k in around(run_id, probes)}
    return found.pop() if len(found) == 1 else None


def one_way_around(run_id: int | None, probes: list[dict]) -> float | None:
    """The mean one-way latency of the probes just before and after a stored run."""
    near = [probes[k]["one_way_ns"] for k in around(run_id, probes)]
    return sum(near) / len(near) if near else None


def floor_of(probes: list[dict], seed: int = 0) -> dict | None:
    """The floor from a set of probes: the smallest row (a lower bound: background only ever slows
    a probe down) with the bootstrap interval of that minimum (scipy.stats.bootstrap), or None."""
    if not probes:
        return None
    rows = np.array([p["no_runtime_row_ns"] for p in probes])
    best = probes[int(np.argmin(rows))]
    found = {key: best[key] for key in ("workers", "width", "exchange_row_ns", "no_runtime_row_ns",
                                        "metg_lower_bound_seconds")}
    found["probes"] = len(probes)
    if len(probes) >= 2 and np.ptp(rows) > 0:
        from scipy import stats  # SciPy loads in 0.4 s: only where a floor is read
        bound = np.array([p["metg_lower_bound_seconds"] for p in probes])
        result = stats.bootstrap((bound,), np.min, n_resamples=999, method="percentile",
                                 rng=np.random.default_rng(seed))
        low, high = result.confidence_interval
        found["metg_lower_bound_interval"] = [float(low), float(high)]
    return found


def describe_floor(found: dict) -> str:
    interval = found.get("metg_lower_bound_interval") or [None, None]
    return (f"no-runtime floor at width {found['width']} ({found['workers']} pinned threads): "
            f"{found['no_runtime_row_ns']:.0f} ns per row, METG(50%) "
            f"{units.seconds_interval(found['metg_lower_bound_seconds'], *interval)}, the lowest of "
            f"{units.count(found.get('probes', 1), 'probe')}")


def describe(probes: list[dict], seconds: float, sweep_seconds: float) -> str:
    """What the probes saw and cost, for the console."""
    ns = [p["one_way_ns"] for p in probes]
    seen = placements(probes)
    if seen.changed:
        where = ("; ".join(f"{label} {lo:.0f}-{hi:.0f} ns" for label, (lo, hi) in seen.ranges.items())
                 + " one way: the CPUs' placement changed during the campaign (docs/harness.md, Placement)")
    else:
        where = f"{min(ns):.0f}-{max(ns):.0f} ns one way (one placement)"
    share = f", {seconds / sweep_seconds:.0%} of the sweep's time" if sweep_seconds > 0 else ""
    return (f"placement: {units.count(len(probes), 'probe')} between the runs ({seconds:.1f} s{share}); "
            f"a cache line took {where}")


def floor_failed_line(found: dict) -> str:
    systems = ", ".join(f"{system}'s {units.seconds(seconds)}" for system, seconds in found["failed"].items())
    return (f"the no-runtime floor measurement failed: its METG(50%) bound, "
            f"{units.seconds(found['metg_lower_bound_seconds'])} "
            f"(the lowest of {units.count(found['probes'], 'probe')}), "
            f"lies above {systems}; no x floor figure is drawn from it")
