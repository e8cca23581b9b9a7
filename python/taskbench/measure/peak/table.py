"""The machine's peak throughput for a kernel, measured here, never a constant.

The peak for a run using C cores is the best throughput of runs that used C cores at once:
stored `taskbench peak` runs with C cores on this machine, and the campaign's own C-core runs
(normally at large granularity). Never a rate scaled from another core count: one core alone
runs faster than each of C busy cores (turbo, a shared power budget, SMT siblings: 82 against
66 GFLOP/s per core on a 16-core Xeon), and a per-core rate times C would cap every C-core
system below 100%. Comparing a run with the peak of the cores it uses keeps a 1-core system
(serial) from being capped at 1/C efficiency on a C-core machine. A stored peak run that other
processes disturbed (measure/noise.py, disturbed) is no peak: it is left out.

Peaks are kept per processor: a GPU system's cores are task slots on the GPU (docs/gpu.md), and
its 100% at W slots is the GPU's peak at W slots (`taskbench peak --gpu`), never a CPU peak at
W cores, nor the other way round. A run's processor is its system's registry entry's ("cpu" for
a system no longer in the registry, and for --external commands).
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench import units
from taskbench.measure.noise import disturbed
from taskbench.measure.kernels import kernel_info, peak_kernel, throughput, unit
from taskbench.registry import entry_processors
from taskbench.registry.locations import find_layout


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


@dataclass(frozen=True)
class Best:
    """The best throughput at one core count, and the run that reached it."""
    value: float
    run: dict

    def describe(self, stored: bool) -> str:
        run = self.run
        what = f"stored `taskbench peak` run of campaign {run.get('campaign')}" if stored else "campaign's best run"
        return f"{what} ({run.get('system')} -iter {run.get('iter')})"


class PeakTable:
    """The best throughput per (processor, cores): stored peak runs and the campaign's own runs."""

    def __init__(self, kernel: str, stored_runs: list[dict] = (), own_family=(),
                 processors: dict[str, str] | None = None):
        self.kernel = kernel
        # {system: "cpu" | "gpu"}; by default, this checkout's (or installation's) registry's.
        self.processors = dict(entry_processors(find_layout().systems_dir) if processors is None else processors)
        self.stored: dict[tuple[str, int], Best] = {}
        for run in stored_runs:
            if not disturbed(run):  # other processes took CPU from it: its rate is theirs too, never a peak
                self._offer(self.stored, run)
        self.observed: dict[tuple[str, int], Best] = {}
        # External systems (their own kernel family) and their best throughput per core count.
        self.own_family = set(own_family)
        self.own_best: dict[str, dict[tuple[str, int], Best]] = {name: {} for name in self.own_family}

    def processor_of(self, system: str | None) -> str:
        return self.processors.get(system, "cpu")

    def _offer(self, table: dict[tuple[str, int], Best], run: dict) -> None:
        value = throughput(run, self.kernel)
        key = (self.processor_of(run.get("system")), run.get("cores") or 1)
        if run.get("status") == "ok" and value and (key not in table or value > table[key].value):
            table[key] = Best(value, run)

    def observe(self, run: dict) -> None:
        """A campaign run: its throughput may set the peak for its core count (and, for an
        external system, its own best)."""
        self._offer(self.observed, run)
        if run.get("system") in self.own_family:
            self._offer(self.own_best[run["system"]], run)

    def own_peak(self, system: str, cores: int | None) -> OwnPeak | None:
        """The external system's own best, when the machine's peak is far above it."""
        cores = cores or 1
        processor = self.processor_of(system)
        own = self.own_best.get(system, {}).get((processor, cores))
        machine = self.peak(cores, processor)
        if own and machine and machine > OWN_KERNEL_FACTOR * own.value:
            return OwnPeak(system, cores, own.value, machine)
        return None

    def peak_for(self, system: str, cores: int | None) -> float | None:
        """What a run of `system` with `cores` cores is measured against (its 100%)."""
        own = self.own_peak(system, cores)
        return own.own if own is not None else self.peak(cores, self.processor_of(system))

    def _best(self, cores: int | None, processor: str) -> tuple[Best | None, bool]:
        """The run defining the peak at `cores` of `processor`, and whether it is a stored peak run."""
        key = (processor, cores or 1)
        stored, observed = self.stored.get(key), self.observed.get(key)
        if stored and (not observed or stored.value >= observed.value):
            return stored, True
        return observed, False

    def peak(self, cores: int | None, processor: str = "cpu") -> float | None:
        best, _ = self._best(cores, processor)
        return best.value if best else None

    def source(self, cores: int | None, processor: str = "cpu") -> str:
        """Which run defined the peak at `cores` (GPU: task slots), in words; and a stored peak
        run the campaign beat, whose own figure was low (measured beside other work, or on
        another day's clock)."""
        best, stored = self._best(cores, processor)
        if best is None:
            return "nothing measured with as many cores"
        beaten = None if stored else self.stored.get((processor, cores or 1))
        if beaten is None:
            return best.describe(stored)
        return (f"{best.describe(False)}, above the {beaten.describe(True)} "
                f"at {units.rate(beaten.value, unit(self.kernel))}")

    def describe(self, processor: str = "cpu") -> dict[int, dict]:
        """{cores: the peak and its source} of one processor's peaks."""
        out = {}
        for key in sorted(k for k in set(self.stored) | set(self.observed) if k[0] == processor):
            stored, observed = self.stored.get(key), self.observed.get(key)
            out[key[1]] = {"stored": stored.value if stored else None,
                           "observed": observed.value if observed else None,
                           "peak": self.peak(key[1], processor), "source": self.source(key[1], processor)}
        return out


def load_peaks(store, kernel: str, machine_id: str, own_family=()) -> PeakTable:
    """Stored peak runs for the kernel whose throughput defines this kernel's 100%;
    `own_family`: external systems, which may be measured against their own best."""
    measured_on = peak_kernel(kernel)
    kernel_info(kernel)  # rejects kernels without counted work
    return PeakTable(kernel, store.peak_runs(measured_on, machine_id), own_family)
