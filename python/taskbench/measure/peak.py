"""The machine's peak throughput for a kernel, measured here, never a constant.

The peak for a run using C cores is the best of: stored `taskbench peak` runs with C cores on
this machine (or, without one at C cores, the best per-core peak times C), and the best
throughput any run of the campaign reached with C cores (normally at large granularity).
Comparing a run with the peak of the cores it uses keeps a 1-core system (serial) from being
capped at 1/C efficiency on a C-core machine.

FLOP/s scale linearly with cores (each core has its own FMA units), so for compute kernels the
best per-core rate seen at any core count, times C, is a candidate too: a C-core peak measured
while another tenant held a core would otherwise be low and inflate every efficiency. Bandwidth
does not scale so, and memory kernels use only what was measured at C cores.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from taskbench.measure.kernels import kernel_info, peak_kernel, throughput


# An external system whose best throughput is this many times below the machine's peak runs
# another suite's kernel, slower than ours: its efficiency is relative to its own best.
OWN_KERNEL_FACTOR = 1.5


@dataclass(frozen=True)
class OwnPeak:
    """The 100% of an external system measured against its own kernel family."""
    system: str
    cores: int
    own: float  # its best throughput with `cores` cores
    machine: float  # the machine's peak with as many cores (our kernel)

    @property
    def factor(self) -> float:
        return self.machine / self.own


class PeakTable:
    def __init__(self, kernel: str, stored_runs: list[dict] = (), own_family=()):
        self.kernel = kernel
        self.stored: dict[int, float] = {}
        for run in stored_runs:
            self._offer(self.stored, run)
        self.observed: dict[int, float] = {}
        # External systems (their own kernel family) and their best throughput per core count.
        self.own_family = set(own_family)
        self.own_best: dict[str, dict[int, float]] = {name: {} for name in self.own_family}

    def _offer(self, table: dict[int, float], run: dict) -> None:
        value = throughput(run, self.kernel)
        cores = run.get("cores") or 1
        if run.get("status") == "ok" and value:
            table[cores] = max(table.get(cores, 0.0), value)

    def observe(self, run: dict) -> None:
        """A campaign run: its throughput may set the peak for its core count (and, for an
        external system, its own best)."""
        self._offer(self.observed, run)
        if run.get("system") in self.own_family:
            self._offer(self.own_best[run["system"]], run)

    def own_peak(self, system: str, cores: int | None) -> OwnPeak | None:
        """The external system's own best, when the machine's peak is far above it."""
        cores = cores or 1
        own = self.own_best.get(system, {}).get(cores)
        machine = self.peak(cores)
        if own and machine and machine > OWN_KERNEL_FACTOR * own:
            return OwnPeak(system, cores, own, machine)
        return None

    def peak_for(self, system: str, cores: int | None) -> float | None:
        """What a run of `system` with `cores` cores is measured against (its 100%)."""
        own = self.own_peak(system, cores)
        return own.own if own is not None else self.peak(cores)

    def peak(self, cores: int | None) -> float | None:
        cores = cores or 1
        candidates = [self.observed.get(cores, 0.0)]
        if cores in self.stored:
            candidates.append(self.stored[cores])
        elif self.stored:
            candidates.append(max(v / c for c, v in self.stored.items()) * cores)
        if kernel_info(self.kernel).metric == "flops":
            per_core = [v / c for table in (self.stored, self.observed) for c, v in table.items()]
            candidates.append(max(per_core, default=0.0) * cores)
        best = max(candidates)
        return best or None

    def describe(self) -> dict[int, dict]:
        out = defaultdict(dict)
        for cores in sorted(set(self.stored) | set(self.observed)):
            out[cores] = {"stored": self.stored.get(cores), "observed": self.observed.get(cores),
                          "peak": self.peak(cores)}
        return dict(out)


def load_peaks(store, kernel: str, machine_id: str, own_family=()) -> PeakTable:
    """Stored peak runs for the kernel whose throughput defines this kernel's 100%;
    `own_family`: external systems, which may be measured against their own best."""
    measured_on = peak_kernel(kernel)
    kernel_info(kernel)  # rejects kernels without counted work
    return PeakTable(kernel, store.peak_runs(measured_on, machine_id), own_family)
