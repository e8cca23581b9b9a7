"""Executes planned runs into the store: campaigns are created, run, resumed and finished here."""

from __future__ import annotations

import random
import re
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from taskbench import provenance, units
from taskbench.errors import EXIT_USAGE, UserError, did_you_mean
from taskbench.launch import LaunchOptions
from taskbench.hosts import facts as host_facts
from taskbench.hosts.description import Cluster, read_cluster
from taskbench.measure.noise import DISTURBED_CORES, spare_cores
from taskbench.launch.runner import SYSTEM_MESSAGE_PREFIX, run_once
from taskbench.measure import analysis_cache, placement
from taskbench.measure.metg import rerun
from taskbench.measure.sweep import settle
from taskbench.measure.analysis import analyze, below_floor
from taskbench.measure.peak import load_peaks
from taskbench.measure.sweep.params import SweepParams, run_key
from taskbench.measure.sweep.bisect import PLAN as BISECT, Bisection, expected_runs
from taskbench.measure.sweep.adaptive import AdaptivePlanner
from taskbench.measure.traces import is_trace_run
from taskbench.store.records import make_record


@dataclass
class ExecutionStats:
    executed: int = 0
    reused: int = 0
    failed: list[dict] = field(default_factory=list)
    repeated_for_load: int = 0  # runs made again because other processes disturbed every try


def new_name(store, kind: str, *parts: str) -> str:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return store.unique_name("-".join([kind, *[p for p in parts if p], stamp]))


def cluster_of(params: dict) -> Cluster | None:
    """The hosts a campaign's runs span: its params keep the description's path (--hosts), read
    again where the campaign is resumed."""
    hosts = params.get("hosts")
    return read_cluster(Path(hosts["path"])) if isinstance(hosts, dict) else None


def hosts_params(cluster: Cluster) -> dict:
    """A campaign's params for its hosts: the description's path, and each host as described and
    as it answered (its CPU): the provenance of every figure across them."""
    return {"path": str(cluster.path), "hosts": list(host_facts.described(cluster))}


def create(store, name: str, kind: str, params: dict, git_revision: str | None) -> None:
    """A campaign across hosts (cluster_of) has their machine, and so the peak its runs are
    measured against: one measured with every host busy (provenance.cluster_id)."""
    machine = dict(provenance.machine())
    machine_id = provenance.machine_id(machine)
    cluster = cluster_of(params)
    if cluster is not None:
        machine["hosts"] = list(host_facts.described(cluster))
        machine_id = provenance.cluster_id(machine["hosts"])
    simulation = params.get("simulation")
    if simulation:  # the simulated machine's: no peak measured here is its 100%
        machine["simulated"] = simulation
        machine_id = f"simulated:{simulation['platform']}:{simulation['sha256'][:16]}:{simulation['nodes']}"
    store.create_campaign(name, kind, params, machine, machine_id, git_revision, provenance.harness())


FAULT_VARIABLE = "TASKBENCH_FAULT"  # the core's fault switch (docs/spec.md §3)


def rejected_flags(system_name: str, reason: str, whose: str = "its flags") -> UserError:
    """The system's own one-line message about its flags, saying which system said it (the fault
    switch is checked with the flags, but it is the environment's, not a flag)."""
    message = reason.removeprefix(SYSTEM_MESSAGE_PREFIX)
    if message.startswith(f"{FAULT_VARIABLE}="):
        whose = f"the environment's {FAULT_VARIABLE}"
    double = re.match(r"unknown flag '--([a-z][a-z0-9_-]*)'", message)
    if double:  # the harness's spelling of a Task Bench flag
        message += f"; Task Bench's flags take one dash: -{double.group(1)}"
    choice = re.search(r"invalid value '([^']*)'; expected one of ([a-z0-9_, ]+)$", message)
    close = choice and did_you_mean(choice.group(1), choice.group(2).split(", "))
    if close:  # a mistyped pattern or kernel: matched against the core's own list of names
        message = f"{message[:choice.start()]}invalid value '{choice.group(1)}'{close} (one of {choice.group(2)})"
    return UserError(f"{system_name} rejects {whose}: {message}", EXIT_USAGE)


def run_alone(store, system, flags: list[str], *, name: str | None, params: dict, options: LaunchOptions,
              timeout: float | None, git_revision: str | None) -> tuple[str, dict]:
    """`taskbench run`: one run, then the campaign of its own that stores it (named `name`, or
    run-SYSTEM-TIME). The run comes first, so flags the system rejects (a mistake, not a
    measurement) and an interrupted run leave nothing in the store: no campaign without its run."""
    if name and store.has_campaign(name):
        raise UserError(f"campaign '{name}' already exists (choose another --campaign name)", EXIT_USAGE)
    outcome = run_once(system, flags, options, timeout)
    if outcome.status == "bad_flags":
        raise rejected_flags(system.name, outcome.reason)
    name = name or new_name(store, "run", system.name)
    create(store, name, "run", params, git_revision)
    run = store.add_run(make_record(outcome, campaign=name, key="run", system=system, flags=flags, rep=None,
                                    git_revision=git_revision))
    store.finish_campaign(name)
    return name, run


def resume_target(store, kind: str, name: str | None) -> dict:
    """The campaign `--resume [NAME]` continues: the named one, else the latest unfinished."""
    if name:
        campaign = store.campaign(name)
        if campaign["kind"] != kind:
            raise UserError(f"campaign '{name}' is a {campaign['kind']} campaign, not {kind}", EXIT_USAGE)
        return campaign
    campaign = store.latest_unfinished(kind)
    if campaign is None:
        raise UserError(f"no unfinished {kind} campaign in {store.path} to resume", EXIT_USAGE)
    return campaign


@dataclass(frozen=True)
class Opened:
    """The campaign a command executes, claimed by this process."""
    name: str
    params: dict
    stored: dict | None  # the campaign as it was stored before this command; None: just created
    continued: bool = False  # an unfinished campaign of the same request, which --resume did not name


def resumed(store, target: dict) -> Opened:
    """The campaign `--resume` continues (resume_target's, or a command's own choice, checked by
    it first), claimed: no second process executes it meanwhile."""
    store.claim(target["name"])
    return Opened(target["name"], target["params"], target)


def created(store, kind: str, name: str, params: dict, git_revision: str | None,
            unfinished: dict | None = None) -> Opened:
    """A new campaign `name` of `params`, claimed before it is stored, so that a `--resume` of the
    latest unfinished campaign never picks it half made; or, where the command found an
    `unfinished` campaign of the same request, that one, continued."""
    if unfinished is not None:
        store.claim(unfinished["name"])
        return Opened(unfinished["name"], unfinished["params"], unfinished, continued=True)
    store.claim(name)
    create(store, name, kind, params, git_revision)
    return Opened(name, params, None)


def execute_one(store, system, flags: list[str], *, campaign: str, key: str, rep: int | None,
                options: LaunchOptions, timeout: float | None, git_revision: str | None,
                stats: ExecutionStats) -> dict:
    """The stored run for `key`, running it first unless a previous attempt stored it."""
    run = store.get_run(campaign, key)
    if run is not None:
        stats.reused += 1
    else:
        outcome = run_once(system, flags, options, timeout)
        run = store.add_run(make_record(outcome, campaign=campaign, key=key, system=system,
                                        flags=flags, rep=rep, git_revision=git_revision))
        stats.executed += 1
    if run["status"] != "ok":
        stats.failed.append(run)
    return run


class Probes:
    """The placement probes of a sweep (measure/placement.py): one before its first run, one
    about every PROBE_EVERY_SECONDS between its runs, one after its last; each stored with the
    campaign as it comes (`placement_probes`, with the id of the last run stored before it), so
    that a resumed campaign keeps the probes of its earlier part."""

    def __init__(self, store, layout, name: str, params: SweepParams, console):
        self.store, self.layout, self.name, self.console = store, layout, name, console
        self.graph = ["-type", params.pattern, *(["-radix", str(params.radix)] if params.radix is not None else []),
                      *params.extra_flags]
        self.width = params.width
        self.stored = list((store.campaign(name)["machine"] or {}).get("placement_probes") or [])
        self.taken = 0
        self.last_run_id = max((r["id"] for r in store.runs(name)), default=0)
        self.seconds = 0.0
        self.due = 0.0  # perf_counter time of the next probe
        # A simulated platform's cores are not this machine's: its placement and floor say nothing.
        self.why_not = "the runs are simulated (docs/simulation.md)" if params.simulation else ""

    def before_run(self) -> None:
        if not self.why_not and time.perf_counter() >= self.due:
            self.take()

    def after_run(self, run: dict) -> None:
        self.last_run_id = max(self.last_run_id, run.get("id") or 0)

    def take(self) -> dict | None:
        start = time.perf_counter()
        found, self.why_not = placement.probe(self.layout, self.graph, self.width)
        self.seconds += time.perf_counter() - start
        self.due = time.perf_counter() + placement.PROBE_EVERY_SECONDS
        if found is None:
            self.console.note(f"placement probes not taken: {self.why_not}")
            return None
        self.stored.append({**found, "after_run_id": self.last_run_id})
        self.taken += 1
        self.store.annotate_campaign_machine(self.name, "placement_probes", self.stored)
        return found

    def record_floor(self) -> dict | None:
        """The floor from every probe (placement.floor_of), and each placement's where the probes
        saw two, kept with the campaign as `no_runtime_floor`."""
        found = placement.floor_of(self.stored)
        if found is None:
            return None
        seen = placement.placements(self.stored)
        if seen.changed:
            found["placements"] = {label: placement.floor_of([p for p, at in zip(self.stored, seen.labels)
                                                              if at == label]) for label in seen.ranges}
        self.store.annotate_campaign_machine(self.name, "no_runtime_floor", found)
        ends = [self.stored[0]["one_way_ns"], self.stored[-1]["one_way_ns"]]
        self.store.annotate_campaign_machine(self.name, "core_to_core_one_way_ns", ends)
        return found


def on_cores(system, cores: int | None, launcher: str | None = None) -> LaunchOptions:
    """A run on `cores` cores: an MPI system's ranks (one core each), another system's threads."""
    if cores is None:
        return LaunchOptions(launcher=launcher)
    return LaunchOptions(ranks=cores, launcher=launcher) if system.is_mpi else LaunchOptions(threads_per_rank=cores)


def sweep_options(system, params: SweepParams) -> LaunchOptions:
    """How the sweep's runs of `system` start: built once per system and campaign (run_sweep), the
    hosts' description and the platform read again from their files only for a campaign read back
    from the store (runnable()), never once per run."""
    if params.cores is not None:
        return on_cores(system, params.cores, params.launcher)
    return LaunchOptions(ranks=params.ranks, threads_per_rank=params.threads_per_rank, launcher=params.launcher,
                         cluster=None if params.cluster is None else params.cluster.runnable(),
                         simulation=None if params.simulation is None else params.simulation.runnable())


def drift_of(store, campaign: dict, params: SweepParams) -> dict[str, float]:
    """{system: tau}: this machine's drift between campaigns for each system's configuration, as
    measured from the campaigns stored before this one (measure/metg/rerun.py); none for a simulation."""
    if params.simulation:
        return {}
    found = rerun.history([c for c in store.campaigns("metg") if c["name"] != campaign["name"]],
                          campaign["machine_id"], campaign.get("created") or "")
    drifts = {system: rerun.drift(found, rerun.configuration(campaign["params"], system)) for system in params.systems}
    return {system: d.tau for system, d in drifts.items() if d is not None}


def usual_runs(params: SweepParams) -> int:
    """The runs of a sweep of the usual shape (measure/sweep/adaptive.py), before any has run here: per system,
    six sizes and the refined ones in every repetition, more tries at two sizes near the threshold,
    and repetitions of those two sizes added up to settle.MIN_REPS; a bisection's, its own."""
    if params.plan == BISECT:
        return expected_runs(params)
    sizes = 6 + params.refine_points
    tries = 2 * params.reps * (params.tries - 1)
    added = max(0, settle.MIN_REPS - params.reps) * 2 * params.tries if params.target_interval > 0 else 0
    return len(params.systems) * (params.reps * sizes + tries + added)


def previous_sweep(store, name: str) -> dict | None:
    """The latest finished campaign of the same sweep (the same parameters) on the same machine,
    as {"name", "runs", "seconds"}: the runs it made and the wall time they took, what this one
    can expect; None where there is none."""
    this = store.campaign(name)
    same = [c for c in store.campaigns("metg") if c["name"] != name and c["status"] == "done"
            and c["machine_id"] == this["machine_id"] and c["params"] == this["params"]]
    if not same:
        return None
    last = max(same, key=lambda c: c.get("created") or "")
    runs = [r for r in store.runs(last["name"]) if not is_trace_run(r)]
    return {"name": last["name"], "runs": len(runs), "seconds": sum(r.get("wall_seconds") or 0.0 for r in runs)}


def run_sweep(store, registry, name: str, params: SweepParams, console,
              git_revision: str | None, floor_check: bool = True) -> ExecutionStats:
    """floor_check: measure the floor again where a METG beats it (check_floor); a sweep that
    only finds where to measure (taskbench check's pilot) leaves it."""
    campaign = store.campaign(name)
    systems = {n: registry.require_available(n) for n in params.systems}
    options = {n: sweep_options(system, params) for n, system in systems.items()}
    peaks = load_peaks(store, params.kernel, campaign["machine_id"], params.externals)
    planner_class = Bisection if params.plan == BISECT else AdaptivePlanner
    planner = planner_class(params, peaks, name, drift_of(store, campaign, params))
    stats = ExecutionStats()
    probes = Probes(store, registry.layout, name, params, console)
    if campaign["status"] == "done":  # it keeps the latency measured while it ran
        probes.why_not = "the campaign is complete: a replay measures nothing"
    sweep_start = time.perf_counter()
    expected = previous_sweep(store, name)
    fresh = not store.runs(name)
    if expected is not None and fresh:
        console.note(f"expect about {units.count(expected['runs'], 'run')} and {units.seconds(expected['seconds'])} of "
                     f"runs: the last sweep of these systems and this graph here ({expected['name']}) made as many")
    elif fresh:
        console.note(f"expect about {units.count(usual_runs(params), 'run')} (the sweep's usual shape; how long they "
                     "take, the first sweep of this kind on this machine will tell the next)")
    with console.progress(f"METG {params.pattern}/{params.kernel}",
                          expected["runs"] if expected else usual_runs(params)) as bar:
        batch_number = 0
        while batch := planner.next_batch():
            batch_number += 1
            # Rounds of tries: every unit once, then again those given more tries, so the tries
            # of one point are spread over the whole batch instead of back to back; each round in
            # a shuffled order, so no repetition or system always runs at the same position
            # (seeded by the campaign name: a resumed sweep replays the same order).
            round_number = 0
            while pending := [u for u in batch if planner.wants_another_try(u)]:
                round_number += 1
                random.Random(zlib.crc32(f"{name}/{batch_number}/{round_number}".encode())).shuffle(pending)
                bar.add(len(pending))
                for unit in pending:
                    system_name, iterations, rep = unit
                    again = planner.repeats_for_load(unit)
                    executed = stats.executed
                    key = run_key(system_name, iterations, rep, planner.attempts(unit))
                    if store.get_run(name, key) is None:
                        probes.before_run()
                    run = execute_one(
                        store, systems[system_name], params.flags(iterations), campaign=name, key=key, rep=rep,
                        options=options[system_name], timeout=params.timeout,
                        git_revision=git_revision, stats=stats)
                    probes.after_run(run)
                    if again and stats.executed > executed:
                        stats.repeated_for_load += 1
                        last = planner.tries[unit][-1]
                        free = spare_cores(last)
                        beyond = f" beyond the {units.count(free, 'CPU')} it left free" if free else ""
                        console.note(f"{system_name} -iter {iterations} rep {rep}: try {planner.attempts(unit) + 1}, "
                                     f"run again because other processes used {last['background_load']:.2f} cores "
                                     f"(> {DISTURBED_CORES}{beyond}) during the last one")
                    planner.add_try(unit, run)
                    bar.advance(f"{system_name} -iter {iterations}")
            planner.finish(batch)
    # A resumed campaign's probes are its start's and its own: the floor and the placements are
    # read from all of them, so an interrupted sweep ends as an uninterrupted one would.
    if not probes.why_not and probes.stored:
        probes.take()
    if probes.taken:
        console.note(placement.describe(probes.stored, probes.seconds, time.perf_counter() - sweep_start))
        found = probes.record_floor()
        if found is not None:
            console.note(placement.describe_floor(found))
            if floor_check:
                check_floor(store, name, probes, console)
    store.finish_campaign(name)
    # The settle lines state the campaign's own figures (the table's, computed once: analysis_cache).
    final = analysis_cache.analysis(store, name) if any(s.settled for s in planner.states.values()) else None
    for state in planner.states.values():
        if state.note:
            console.warn(f"{state.name}: {state.note}")
        if state.settled:
            console.note(f"{state.name}: {settle.line(final.curves[state.name].summary, state.settled)}")
    return stats


FLOOR_RETRIES = 10  # probes more, where a parallel METG came out below the floor


def check_floor(store, name: str, probes: Probes, console) -> None:
    """A parallel system's METG below the floor means the floor measurement failed, since no
    runtime beats the no-runtime loop on its own graph: it is measured again (FLOOR_RETRIES more
    probes, its minimum over all of them), and where it still lies above, the campaign's floor
    says so (`failed`), and no "x floor" figure is drawn from it (report/tables.py)."""
    below = below_floor(analyze(store, name))
    if not below:
        return
    console.note(f"{', '.join(below)}: METG below the no-runtime floor: measuring the floor again "
                 f"({FLOOR_RETRIES} more probes)")
    for _ in range(FLOOR_RETRIES):
        if probes.take() is None:
            break
    found = probes.record_floor()
    below = below_floor(analyze(store, name))
    if found is None or not below:
        if found is not None:
            console.note(placement.describe_floor(found) + ", measured again")
        return
    found["failed"] = below
    store.annotate_campaign_machine(name, "no_runtime_floor", found)
    console.warn(placement.floor_failed_line(found))

