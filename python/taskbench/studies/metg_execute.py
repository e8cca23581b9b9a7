"""Plans a METG study into a parent campaign (kind "study") and runs its sweeps, resumably.

Planned once, when the parent is created: which requested systems can run here (the others are
kept with their reason, for the table) and the exact sweeps, each with the name of the "metg"
campaign that will hold it (PARENT-LABEL, so `taskbench campaigns` lists them together and
`taskbench metg --resume CHILD` also works). Running creates each child when it starts and runs
campaign.run_sweep on it, which replays stored runs: an interrupted study re-run continues where
it stopped, sweep by sweep.
"""

from __future__ import annotations

import dataclasses

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch.launchers import ACROSS_HOSTS
from taskbench.measure.sweep import campaign
from taskbench.measure.analysis import analyze, results_record
from taskbench.measure.sweep.params import SweepParams
from taskbench.studies.metg_preset import HEAVY_QUICK_STEPS_DIVISOR, MetgStudy, Sweep, base_settings


def _groups(registry, runnable: list[str], quick: bool) -> list[tuple[str, list[str]]]:
    """(campaign suffix, systems): in --quick the heavy engines get a campaign of their own,
    with fewer timesteps; in the full run every system shares one sweep."""
    if not quick:
        return [("", runnable)]
    light = [s for s in runnable if not registry.get(s).heavy]
    slow = [s for s in runnable if registry.get(s).heavy]
    return [(suffix, group) for suffix, group in (("", light), ("-heavy", slow)) if group]


def runnable_here(study: str, registry, systems: list[str], cluster=None) -> tuple[list[str], dict[str, str]]:
    """The requested systems that can run here (across `cluster`'s hosts, with one), and why each
    of the others cannot; a study none of whose systems can run is refused."""
    runnable, unavailable = [], {}
    for name in systems:
        system = registry.get(name)  # an unknown name is a usage error, not "unavailable"
        if not system.available:
            unavailable[name] = system.reason
        elif cluster is not None and (system.not_across_hosts or system.launcher not in ACROSS_HOSTS):
            unavailable[name] = system.not_across_hosts or f"its {system.launcher} launcher runs on this machine only"
        else:
            runnable.append(name)
    if not runnable:
        raise UserError(f"study {study}: none of {', '.join(systems)} is available here "
                        "(see `taskbench systems`)", EXIT_ENVIRONMENT)
    return runnable, unavailable


def campaign_params(study: MetgStudy, registry, systems: list[str], quick: bool, reps: int, timeout: float,
                    cores: int, parent: str, sweeps_given: list[Sweep] | None = None) -> dict:
    """The parent campaign's params: the request, what cannot run and why, and every sweep
    (`sweeps_given`: instead of the study's own, e.g. one per host count across hosts)."""
    runnable, unavailable = runnable_here(study.name, registry, systems)
    reduced, sweeps = [], []
    for sweep in study.sweeps(quick, cores) if sweeps_given is None else sweeps_given:
        for suffix, group in _groups(registry, runnable, quick):
            settings = {"width": cores, **base_settings(quick), **sweep.settings}
            if suffix:
                settings["steps"] = max(1, settings["steps"] // HEAVY_QUICK_STEPS_DIVISOR)
                reduced = group
            params = SweepParams(systems=list(group), reps=reps, timeout=timeout, **settings)
            sweeps.append({"value": sweep.value, "label": sweep.label, "campaign": f"{parent}-{sweep.label}{suffix}",
                           "params": params.to_dict()})
    notes = ([f"--quick: {', '.join(reduced)} run 1/{HEAVY_QUICK_STEPS_DIVISOR} of the timesteps, "
              "in sweeps of their own (their start-up costs seconds a run)"] if reduced else [])
    return {"study": study.name, "quick": quick, "systems": list(systems), "reps": reps, "retries": 0,
            "timeout": timeout, "cores": cores, "unavailable": unavailable, "notes": notes, "sweeps": sweeps}


def run(store, registry, name: str, console, git_revision: str | None) -> campaign.ExecutionStats:
    total = run_sweeps(store, registry, store.campaign(name)["params"], console, git_revision)
    store.finish_campaign(name)
    return total


def run_sweeps(store, registry, params: dict, console, git_revision: str | None,
               total: campaign.ExecutionStats | None = None) -> campaign.ExecutionStats:
    """Every sweep of a parent campaign's params not done yet; `total` adds to earlier stats."""
    total = total or campaign.ExecutionStats()
    for i, sweep in enumerate(params["sweeps"], 1):
        child = sweep["campaign"]
        sweep_params = SweepParams.from_dict(sweep["params"])
        if not store.has_campaign(child):
            campaign.create(store, child, "metg", sweep_params.to_dict(), git_revision)
        elif store.campaign(child)["status"] == "done":
            total.reused += len(store.runs(child))
            continue
        console.note(f"[{i}/{len(params['sweeps'])}] {params['study']} {sweep['label']}: "
                     f"{', '.join(sweep_params.systems)} -> campaign {child}")
        stats = campaign.run_sweep(store, registry, child, sweep_params, console, git_revision)
        store.set_campaign_results(child, results_record(analyze(store, child)))
        total = dataclasses.replace(total, executed=total.executed + stats.executed,
                                    reused=total.reused + stats.reused, failed=total.failed + stats.failed,
                                    repeated_for_load=total.repeated_for_load + stats.repeated_for_load)
    return total
