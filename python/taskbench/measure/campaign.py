"""Executes planned runs into the store: campaigns are created, run, resumed and finished here."""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

from taskbench import provenance
from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import LaunchOptions, host_facts
from taskbench.launch.hosts import Cluster, read_cluster
from taskbench.launch.runner import DISTURBED_CORES, SYSTEM_MESSAGE_PREFIX, run_once
from taskbench.measure import placement
from taskbench.measure.peak import load_peaks
from taskbench.measure.sweep import Planner, SweepParams, run_key
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


def open(store, kind: str, *, resume: str | None, new: Callable[[], tuple[str, dict]],
         git_revision: str | None, latest: Callable[[], dict] | None = None,
         accept: Callable[[dict], None] | None = None,
         unfinished: Callable[[dict], dict | None] | None = None) -> Opened:
    """Resumes, continues or creates the campaign a command executes, and claims it (no second
    process executes it meanwhile) before anything runs.

    `resume` is --resume's value: "" for the latest unfinished campaign of `kind` (or `latest()`'s
    choice), a name for that one, None for a new campaign; `accept` may refuse the one resumed
    (UserError). A new campaign is `new()`'s (name, params), unless `unfinished(params)` finds an
    unfinished campaign of the same request: that one is continued. A created campaign is
    claimed first, so that a `--resume` of the latest unfinished campaign never picks it half made.
    """
    if resume is not None:
        target = latest() if latest is not None and not resume else resume_target(store, kind, resume)
        if accept is not None:
            accept(target)
        store.claim(target["name"])
        return Opened(target["name"], target["params"], target)
    name, params = new()
    previous = unfinished(params) if unfinished is not None else None
    if previous is not None:
        store.claim(previous["name"])
        return Opened(previous["name"], previous["params"], previous, continued=True)
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


def record_floor(store, layout, name: str, params: SweepParams, console, earlier: dict | None = None) -> dict | None:
    """The no-runtime floor of the sweep's graph at its width, kept with the campaign: measured at
    its start and again at its end (`earlier`: the start's), the lower kept, as the systems'
    figures are their best: a VM's vCPUs may move between cores meanwhile (docs/harness.md)."""
    graph = ["-type", params.pattern, *(["-radix", str(params.radix)] if params.radix is not None else []),
             *params.extra_flags]
    found, why_not = placement.floor(layout, graph, params.width)
    if found is None:
        console.note(f"no-runtime floor not recorded: {why_not}")
        return earlier
    if earlier is not None:
        readings = [earlier["no_runtime_row_ns"], found["no_runtime_row_ns"]]
        found = min(earlier, found, key=lambda f: f["no_runtime_row_ns"])
        found = {**found, "row_ns_start_end": readings}
    store.annotate_campaign_machine(name, "no_runtime_floor", found)
    console.note(placement.describe_floor(found) + (" (the lower of its start and end)" if earlier else ""))
    return found


def on_cores(system, cores: int | None, launcher: str | None = None) -> LaunchOptions:
    """A run on `cores` cores: an MPI system's ranks (one core each), another system's threads."""
    if cores is None:
        return LaunchOptions(launcher=launcher)
    return LaunchOptions(ranks=cores, launcher=launcher) if system.is_mpi else LaunchOptions(threads_per_rank=cores)


def sweep_options(system, params: SweepParams) -> LaunchOptions:
    if params.cores is not None:
        return on_cores(system, params.cores, params.launcher)
    cluster = cluster_of(params.to_dict())
    return LaunchOptions(ranks=params.ranks, threads_per_rank=params.threads_per_rank, launcher=params.launcher,
                         cluster=cluster)


def run_sweep(store, registry, name: str, params: SweepParams, console,
              git_revision: str | None) -> ExecutionStats:
    campaign = store.campaign(name)
    systems = {n: registry.require_available(n) for n in params.systems}
    peaks = load_peaks(store, params.kernel, campaign["machine_id"], params.externals)
    planner = Planner(params, peaks)
    stats = ExecutionStats()
    # A complete campaign keeps the latency measured while it ran: a replay measures nothing.
    complete = campaign["status"] == "done"
    start_ns, why_not = (None, "") if complete else placement.one_way_ns(registry.layout)
    if why_not:
        console.note(f"core-to-core latency not recorded: {why_not}")
    floor_at_start = record_floor(store, registry.layout, name, params, console) if not complete else None
    with console.progress(f"METG {params.pattern}/{params.kernel}") as bar:
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
                    run = execute_one(
                        store, systems[system_name], params.flags(iterations), campaign=name,
                        key=run_key(system_name, iterations, rep, planner.attempts(unit)), rep=rep,
                        options=sweep_options(systems[system_name], params), timeout=params.timeout,
                        git_revision=git_revision, stats=stats)
                    if again and stats.executed > executed:
                        stats.repeated_for_load += 1
                        load = planner.tries[unit][-1]["background_load"]
                        console.note(f"{system_name} -iter {iterations} rep {rep}: try {planner.attempts(unit) + 1}, "
                                     f"run again because other processes used {load:.2f} cores "
                                     f"(> {DISTURBED_CORES}) during the last one")
                    planner.add_try(unit, run)
                    bar.advance(f"{system_name} -iter {iterations}")
            planner.finish(batch)
    if floor_at_start is not None:
        record_floor(store, registry.layout, name, params, console, earlier=floor_at_start)
    end_ns = placement.one_way_ns(registry.layout)[0] if start_ns is not None else None
    if start_ns is not None:
        store.annotate_campaign_machine(name, "core_to_core_one_way_ns", [start_ns, end_ns])
    text, changed = placement.describe(start_ns, end_ns)
    if changed:
        console.warn(f"{text}: the CPUs' placement changed during the campaign, and fine-grained "
                     "figures with it (see docs/harness.md)")
    elif text:
        console.note(text)
    store.finish_campaign(name)
    for state in planner.states.values():
        if state.note:
            console.warn(f"{state.name}: {state.note}")
    return stats
