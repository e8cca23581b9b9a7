"""Every study preset by name (`taskbench study NAME`), and how one is planned into a campaign and
run, resumably. Adding a preset: its module in presets/, its figure in plots/study_figures.py,
and its place in PRESETS.

Planned once, when the campaign is created: which requested systems can run here (the others
are kept with their reason, for the table), which of them can give a breakdown, and the exact
grid of runs; all of it goes into the campaign's params. Running replays that stored grid:
stored keys are reused, so a resumed study runs only what is missing.

Noise: background load only slows a run down, so each point keeps its fastest repetition. A
point whose fastest run still shared the machine (measure/noise.py: other processes used more
than 0.25 cores while it ran) gets one more try per round, up to `retries` rounds after
the grid. Which points those are depends only on stored runs, so a resumed study replays the
same rounds.
"""

from __future__ import annotations

import dataclasses
import random
import zlib

from taskbench import provenance
from taskbench.errors import EXIT_USAGE, UserError, did_you_mean
from taskbench.launch import LaunchOptions
from taskbench.hosts.description import Cluster, first_hosts
from taskbench.measure.noise import disturbed
from taskbench.measure.sweep import campaign
from taskbench.registry.breakdown import why_no_breakdown, with_breakdown
from taskbench.studies import metg_execute, metg_results, simulated_study
from taskbench.studies.metg_preset import MetgStudy
from taskbench.studies.preset import GridRun, Study
from taskbench.studies.presets import discovery, gpu_offload, imbalance, scaling, taskbench_paper
from taskbench.studies.results import fastest

KIND = "study"
# What makes a re-run of `taskbench study NAME` the same request as a stored campaign.
REQUEST_KEYS = ("study", "quick", "systems", "reps", "retries", "hosts", "launcher", "simulated")

PRESETS: dict[str, Study | MetgStudy] = {
    s.name: s for s in (imbalance.STUDY, discovery.STUDY, *taskbench_paper.STUDIES, scaling.STUDY, gpu_offload.STUDY)}


def get(name: str) -> Study | MetgStudy:
    if name not in PRESETS:
        raise UserError(f"unknown study '{name}'{did_you_mean(name, PRESETS)} (known: {', '.join(PRESETS)}; "
                        "`taskbench study --list`)", EXIT_USAGE)
    return PRESETS[name]


def campaign_params(study: Study, registry, build_dir, systems: list[str], quick: bool, reps: int,
         timeout: float, retries: int, parent: str = "", cluster: Cluster | None = None,
         launcher: str | None = None) -> dict:
    """The campaign's params: the request, what cannot run and why, the grid, and the sweeps of
    the study's METG part, if it has one (campaigns PARENT-LABEL, as a METG study's). With a
    cluster description (--hosts), the study's runs over 1..N of its hosts, the MPI systems'
    ranks started by `launcher` (mpirun or srun; None: the registry's)."""
    if cluster is not None and study.hosts_grid is None:
        across = [s.name for s in PRESETS.values() if getattr(s, "hosts_grid", None) is not None]
        raise UserError(f"--hosts: study {study.name} runs on this machine only (across hosts: "
                        f"{', '.join(across) or 'none'})", EXIT_USAGE)
    runnable, unavailable = metg_execute.runnable_here(study.name, registry, systems, cluster)
    no_breakdown = {}
    if study.breakdown:
        for name in runnable:
            reason = why_no_breakdown(registry.get(name), build_dir)
            if reason:
                no_breakdown[name] = reason
    chosen = study.grid(runnable, quick, reps) if cluster is None else study.hosts_grid(runnable, quick, reps, cluster)
    grid = [dataclasses.replace(r, breakdown=r.breakdown and r.system not in no_breakdown) for r in chosen]
    params = {"study": study.name, "quick": quick, "systems": list(systems), "reps": reps,
              "timeout": timeout, "retries": retries, "unavailable": unavailable, "no_breakdown": no_breakdown,
              "grid": [r.to_dict() for r in grid]}
    if cluster is not None:
        params["hosts"] = campaign.hosts_params(cluster)
    if launcher is not None:
        params["launcher"] = launcher
    if study.metg is not None:
        metg_reps = min(reps, study.metg.quick_reps if quick else study.metg.reps)
        sweeps = metg_execute.campaign_params(study.metg, registry, runnable, quick, metg_reps, timeout,
                                              provenance.available_cores(), parent,
                                              None if cluster is None else study.hosts_sweeps(quick, cluster))
        for sweep in sweeps["sweeps"]:
            sweep["params"]["launcher"] = launcher
        params.update(sweeps=sweeps["sweeps"], notes=sweeps["notes"])
    return params


def unfinished_like(store, params: dict) -> dict | None:
    """The latest unfinished study campaign that asked for the same thing (a re-run resumes it)."""
    candidates = [c for c in store.campaigns(KIND) if c["status"] == "running"
                  and all(c["params"].get(k) == params.get(k) for k in REQUEST_KEYS)]
    return candidates[-1] if candidates else None


def latest_unfinished(store, study: str) -> dict:
    """The campaign a bare `--resume` continues: the latest unfinished one of this study."""
    candidates = [c for c in store.campaigns(KIND) if c["status"] == "running" and c["params"].get("study") == study]
    if not candidates:
        raise UserError(f"no unfinished {study} study in {store.path} to resume")
    return candidates[-1]


def resume_target(store, study, resume: str) -> dict:
    """The campaign `--resume [NAME]` continues: the named one, which must be of this study, or the
    latest unfinished one of this study."""
    target = campaign.resume_target(store, KIND, resume) if resume else latest_unfinished(store, study.name)
    if target["params"].get("study") != study.name:
        raise UserError(f"campaign '{target['name']}' is a {target['params'].get('study')} study, "
                        f"not {study.name}", EXIT_USAGE)
    return target


def stored_runs(store, target: dict) -> int:
    """Runs already stored for a study campaign: its own, or its sweeps' for a METG study."""
    return sum(len(store.runs(n)) for n in [target["name"], *metg_results.child_campaigns(target)]
               if store.has_campaign(n))


def planned(study: Study | MetgStudy, registry, build_dir, systems: list[str], quick: bool, reps: int,
            timeout: float, retries: int, name: str, cluster: Cluster | None, launcher: str | None) -> dict:
    """A new campaign's params, on this machine or across `cluster`'s hosts: a METG study's sweeps
    (metg_execute.py), a grid study's runs (campaign_params)."""
    if study.kind != "metg":
        return campaign_params(study, registry, build_dir, systems, quick, reps, timeout, retries, name, cluster,
                               launcher)
    if cluster is not None:
        raise UserError(f"--hosts: study {study.name} runs on this machine only (a METG sweep across "
                        "hosts: `taskbench metg --hosts FILE`)", EXIT_USAGE)
    return metg_execute.campaign_params(study, registry, systems, quick, reps, timeout, provenance.available_cores(),
                                        name)


def run_campaign(study, store, registry, build_dir, name: str, console,
                 git_revision: str | None) -> campaign.ExecutionStats:
    """Runs what the study campaign `name` lacks, as it was planned: sweeps on a simulated
    platform (simulated_study.py), a METG study's sweeps (metg_execute.py), or a grid (run)."""
    params = store.campaign(name)["params"]
    if simulated_study.is_simulated(params):
        stats = simulated_study.run_sweeps(store, registry, params, console, git_revision)
        store.finish_campaign(name)
        return stats
    if study.kind == "metg":
        return metg_execute.run(store, registry, name, console, git_revision)
    return run(store, registry, build_dir, name, console, git_revision)


def _order(grid: list[GridRun], name: str) -> list[GridRun]:
    """Repetition by repetition, each shuffled (seeded by the campaign name, so a resumed study
    replays the same order): systems and points interleave, and no system always runs first."""
    ordered = []
    for rep in sorted({r.rep for r in grid}):
        batch = [r for r in grid if r.rep == rep]
        random.Random(zlib.crc32(f"{name}/{rep}".encode())).shuffle(batch)
        ordered += batch
    return ordered


def _noisy(run: dict | None) -> bool:
    return run is not None and disturbed(run)


def retry_round(grid: list[GridRun], runs: list[dict], round_number: int) -> list[GridRun]:
    """One more try (repetition reps + round_number) of every point whose fastest run was noisy,
    judged on the runs before this round only (a resumed study may hold later ones already)."""
    reps = max(r.rep for r in grid) + 1
    tries: dict[str, list[dict]] = {}
    for run in runs:
        if run.get("rep") is not None and run["rep"] < reps + round_number:
            tries.setdefault(run["key"].rsplit("/rep=", 1)[0], []).append(run)
    firsts = [r for r in grid if r.rep == 0]
    return [dataclasses.replace(r, rep=reps + round_number) for r in firsts
            if _noisy(fastest(tries.get(r.point_id, [])))]


def launch_options(system, cores: int | None, hosts: Cluster | None = None,
                   launcher: str | None = None) -> LaunchOptions:
    """campaign.on_cores, or across `hosts`: every core of each, an MPI system's ranks started by `launcher`."""
    if hosts is not None:
        return LaunchOptions(launcher=launcher, cluster=hosts)
    return campaign.on_cores(system, cores)


def run(store, registry, build_dir, name: str, console, git_revision: str | None) -> campaign.ExecutionStats:
    params = store.campaign(name)["params"]
    grid = [GridRun.from_dict(d) for d in params["grid"]]
    cluster = campaign.cluster_of(params)  # read again: a resumed study finds the hosts as they are now
    variants = {}
    for grid_run in grid:
        if (grid_run.system, grid_run.breakdown) not in variants:
            system = registry.require_available(grid_run.system)
            variants[(grid_run.system, grid_run.breakdown)] = (
                with_breakdown(system, build_dir, registry) if grid_run.breakdown else system)
    stats = campaign.ExecutionStats()
    with console.progress(f"study {params['study']}") as bar:
        batch, round_number = _order(grid, name), 0
        while batch:
            bar.add(len(batch))
            for grid_run in batch:
                system = variants[(grid_run.system, grid_run.breakdown)]
                hosts = first_hosts(cluster, grid_run.hosts) if grid_run.hosts is not None else None
                campaign.execute_one(store, system, list(grid_run.flags), campaign=name, key=grid_run.key,
                                     rep=grid_run.rep, options=launch_options(system, grid_run.cores, hosts,
                                                                              params.get("launcher")),
                                     timeout=params["timeout"], git_revision=git_revision, stats=stats)
                bar.advance(grid_run.key)
            round_number += 1
            if round_number > params.get("retries", 0):
                break
            batch = _order(retry_round(grid, store.runs(name), round_number - 1), f"{name}/retry")
    if params.get("sweeps"):
        stats = metg_execute.run_sweeps(store, registry, params, console, git_revision, stats)
    store.finish_campaign(name)
    return stats
