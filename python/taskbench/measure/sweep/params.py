"""What a METG sweep is, as the planner (measure/sweep/adaptive.py), the campaign that runs it and the
analysis that reads it back all see it: its parameters, stored with the campaign so that a
resume runs the same sweep; the key each run is stored under; and which of a point's tries
counts, so that the planner and the analysis read the same curve from the same runs.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field, fields

from taskbench.hosts.description import Cluster
from taskbench.hosts.simulated import Simulation
from taskbench.measure.kernels import throughput
from taskbench.measure.metg.methods import LEGACY_METHODS
from taskbench.measure.noise import disturbed

# The fields whose values are objects, stored as records of their own (to_dict, from_dict).
TYPED = ("cluster", "host_facts", "simulation")


@dataclass
class SweepParams:
    systems: list[str]
    pattern: str = "stencil_1d"
    kernel: str = "compute_bound"
    steps: int = 1000
    width: int = 2
    radix: int | None = None
    threshold: float = 0.5  # fraction of peak
    reps: int = 3
    tries: int = 3  # runs of a (size, repetition) near the threshold; the fastest counts
    start_iter: int = 1 << 16
    factor: int = 4
    refine_points: int = 3
    min_iter: int = 1
    max_up: int = 2
    scratch: int | None = None
    extra_flags: list[str] = field(default_factory=list)
    timeout: float = 120.0
    ranks: int | None = None
    threads_per_rank: int | None = None
    launcher: str | None = None  # mpirun or srun for MPI systems; None: the registry's
    # Every run on this many cores: an MPI system's ranks, another system's threads (`taskbench
    # study scaling`'s METG vs cores); None: ranks and threads_per_rank above, or the defaults.
    cores: int | None = None
    max_spread: float = 0.10
    rechecks: int = 2  # rounds of extra tries while the repetitions still disagree
    # `--external` systems of this campaign, {name: {"cores": N, "command": "..."}}: stored, so
    # that a resumed campaign runs the same commands (taskbench.registry.external).
    externals: dict = field(default_factory=dict)
    graphs: int = 1  # identical task graphs run at once (`-and`), as the paper's Fig. 9d and 11
    # --hosts: the cluster description the runs span, and each host as it answered when the
    # campaign began (hosts/facts.py), the campaign's provenance. Stored as "hosts": {"path": FILE,
    # "hosts": [{"name", "address", "cores", ...}]}; read back without the file (Cluster.as_stored),
    # which a resumed campaign reads again to run (Cluster.runnable).
    cluster: Cluster | None = None
    host_facts: tuple[dict, ...] = ()
    # --simulate and --nodes: the simulated platform the runs are on; None: real cores. Stored as
    # Simulation.params() (its file, the file's hash, the node count), read back without the file.
    simulation: Simulation | None = None
    # Which plan picks the sizes: "adaptive" (measure/sweep/adaptive.py, against a noisy machine) or "bisect"
    # (measure/sweep/bisect.py: deterministic runs, a simulated campaign's), and where the bisection
    # looks first, {system: -iter} (the previous node count's crossing). Stored, so that a
    # resumed campaign replays the same plan; a campaign stored before them is "adaptive".
    plan: str = "adaptive"
    seeds: dict = field(default_factory=dict)
    # How the reported METG is read from the runs (metg.METG_METHODS, measure/metg/estimate.py); "paper"
    # compares a figure with a published one on the same definition. The sweep itself is the same.
    metg_method: str = "fit"
    # A METG whose 95% interval is wider than this (half-width over the METG) is unreliable.
    max_interval: float = 0.10
    # Repetitions of the two sizes around each crossing are added (measure/sweep/settle.py) until the
    # METG's interval is within this (half-width over the METG; 0: none added), or until they
    # have taken `interval_budget` times the time of the sweep's own runs.
    target_interval: float = 0.05
    interval_budget: float = 1.0

    def to_dict(self) -> dict:
        """What the store keeps of them: plain values, the hosts and the platform as their records."""
        stored = {}
        for f in fields(self):  # in their order, as a campaign stored before them has its keys
            if f.name == "cluster":
                stored["hosts"] = None if self.cluster is None else {"path": str(self.cluster.path),
                                                                      "hosts": list(self.host_facts)}
            elif f.name == "simulation":
                stored["simulation"] = None if self.simulation is None else self.simulation.params()
            elif f.name not in TYPED:
                stored[f.name] = getattr(self, f.name)
        return deepcopy(stored)

    @classmethod
    def from_dict(cls, data: dict) -> "SweepParams":
        """A campaign's stored params. One stored before the fit reads as it did: its METG the
        median of its repetitions', no repetitions added on a resume."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k not in TYPED}
        if "metg_method" not in known or known["metg_method"] in LEGACY_METHODS:
            known["metg_method"] = LEGACY_METHODS.get(known.get("metg_method"), "median")
            known.setdefault("target_interval", 0.0)
        hosts, simulation = data.get("hosts"), data.get("simulation")
        if isinstance(hosts, dict):
            known["cluster"], known["host_facts"] = Cluster.as_stored(hosts), tuple(hosts["hosts"])
        if simulation:
            known["simulation"] = Simulation.as_stored(simulation)
        return cls(**known)

    def flags(self, iterations: int) -> list[str]:
        flags = ["-steps", str(self.steps), "-width", str(self.width), "-type", self.pattern,
                 "-kernel", self.kernel, "-iter", str(iterations)]
        if self.radix is not None:
            flags += ["-radix", str(self.radix)]
        if self.scratch:
            flags += ["-scratch", str(self.scratch)]
        one_graph = flags + list(self.extra_flags)
        # Graph flags are reset by -and, so every copy repeats all of them.
        return one_graph + [flag for _ in range(self.graphs - 1) for flag in ["-and", *one_graph]]


def run_key(system: str, iterations: int, rep: int, attempt: int = 0) -> str:
    return f"{system}/iter={iterations}/rep={rep}/try={attempt}"


def best_of(runs: list[dict], kernel: str) -> dict:
    """The try that counts for a (size, repetition): the highest throughput among successful
    undisturbed ones (background load only ever slows a run down), else among successful
    disturbed ones, else the first failure."""
    ok = [r for r in runs if r.get("status") == "ok" and throughput(r, kernel) is not None]
    quiet = [r for r in ok if not disturbed(r)]
    if quiet or ok:
        return max(quiet or ok, key=lambda r: throughput(r, kernel))
    return runs[0]
