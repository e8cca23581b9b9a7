"""One registry entry: a system, as its systems/<folder>/system.toml describes it, and whether
it can run here (filled in by the registry)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

PROCESSORS = ("cpu", "gpu")
# The peaks `taskbench peak` measures with a registry system chosen by its `peak_probe` key:
# the one-core CPU peak, the GPU's (`--gpu`), and every core of a cluster description's hosts
# busy at once (`--hosts`: one rank per core, across them).
PEAK_PROBES = ("one_core", "gpu", "across_hosts")


@dataclass
class System:
    name: str
    binary: str
    folder: Path
    launcher: str = "local"
    component: str | None = None
    language: str = ""
    description: str = ""
    cores: str | int = "all"  # "all" (every available core) or a fixed count
    threads_flag: str | None = None
    args: list[str] = field(default_factory=list)  # flags always passed first (a variant of a binary)
    env: dict[str, str] = field(default_factory=dict)
    # The Task Bench paper's system whose algorithm this entry runs (its port's synchronisation,
    # task creation, dependence mechanism and timed region; docs/paper-ports.md), by the published
    # data's name, e.g. "mpi_nonblock": every published figure set beside this entry's is that
    # system's. Empty where the entry runs no paper port as the paper ran it.
    paper_system: str = ""
    default: bool = False
    ranks: int | None = None  # default MPI ranks (mpirun/srun launchers), worker processes (dask)
    threads_per_rank: int | None = None
    driver_rank: bool = False  # rank 0 only submits work: by default one rank more than cores
    mpi: str | None = None  # "openmpi" | "mpich": which mpirun flavour
    requires: list[str] = field(default_factory=list)  # Python modules a Python system imports
    # How to ask for a work/overhead/idle/discovery breakdown (`run --breakdown`, studies):
    # {args = [...], env = {...}, requires = [...]}, "{build}" standing for the build folder.
    breakdown: dict | None = None
    # Another suite's port (taskbench.registry.external): `command` run with the flags, `cores` counted.
    external: bool = False
    command: str = ""
    # What a task runs on: "cpu", or "gpu" (cores are task slots on the GPU, its peak the GPU's at
    # as many slots, available only where a CUDA device can be used: docs/gpu.md).
    processor: str = "cpu"
    # Facts the harness asks the registry for rather than naming systems in its code:
    # Its index into registry/facts.py's PALETTE: the entry's, else one from its name (facts.py).
    color: int | None = None
    heavy: bool = False  # start-up costs seconds a run: --quick METG studies sweep it apart, shorter
    # Its engine, not the harness, reaps its worker processes: a run whose worker is killed fails
    # with a reason holding these words instead of the signal (the fault matrix checks them).
    killed_worker_reason: str = ""
    peak_probe: str | None = None  # one of PEAK_PROBES: the peak `taskbench peak` measures with it
    # What it lacks to run across hosts (--hosts refuses it with these words), where its engine
    # has a multi-node mode that cannot be had here.
    not_across_hosts: str = ""
    studies: dict[str, str] = field(default_factory=dict)  # study preset -> its role there
    # The system whose simulated build this is (launcher smpirun): `metg mpi_p2p --simulate cori`
    # runs the entry that simulates mpi_p2p (docs/simulation.md).
    simulates: str = ""
    extra: dict = field(default_factory=dict)  # keys this harness does not know (kept, ignored)
    # Filled in by resolve():
    available: bool = False
    reason: str = ""
    binary_path: Path | None = None
    note: str = ""  # the build's line about its component (e.g. which NVIDIA driver it loads)
    standin: bool = False  # a GPU entry run on the CUDA stand-in (registry/gpu.py): never a figure

    @property
    def is_mpi(self) -> bool:
        return self.launcher in ("mpirun", "srun")
