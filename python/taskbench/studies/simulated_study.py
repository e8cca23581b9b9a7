"""`taskbench study NAME --simulate PLATFORM --nodes N,N,...`: a METG study's sweeps run by the
systems' SimGrid builds on the platform's first N nodes (docs/simulation.md), each sweep once per
node count, with the paper's published figure of the same graph at the same node count beside.

What differs from the study on this machine, and why:
- the graphs are as wide as the simulated nodes' cores (the paper's width), not the study's WIDE;
- one repetition, one try and a bisection towards the crossing (measure/sweep/bisect.py): a
  simulated run gives the same result every time; each sweep is seeded with the crossing of the
  sweep before it (the previous output size or node count), which moves little between them;
- the start size is large (START_ITER): a simulated kernel costs no wall time whatever its size,
  and the bisection needs an efficient start at every output size (the paper's 64 KiB METG is
  milliseconds);
- the study's own values may be fewer (MetgStudy.simulated_values): a simulated sweep at 64 nodes
  costs minutes, so only the values the paper published are run.

Every figure is simulated seconds, labelled SIMULATED in the table, the findings and the figure."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import time

from taskbench import plots, units
from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.smpirun import simulated_systems
from taskbench.measure.sweep.bisect import crossings
from taskbench.hosts.simulated import Platform, Simulation
from taskbench.measure.sweep import campaign
from taskbench.measure.analysis import analyze, results_record
from taskbench.measure.sweep.params import SweepParams
from taskbench.measure.sweep.bisect import PLAN as BISECT
from taskbench.studies.metg_execute import runnable_here
from taskbench.studies.metg_preset import MetgStudy, base_settings
from taskbench.studies.preset import paper_systems

DEFAULT_STEPS = 100  # as docs/simulation.md's curves; --steps
START_ITER = 1 << 24  # compute_bound: ~64 ms a task on a Cori core, efficient at every output size


def default_systems(study: MetgStudy, registry) -> list[str]:
    """The study's default systems that have a simulated build (mpi_p2p, mpi_bulk)."""
    names = {s.simulates for s in registry if s.simulates}
    return [name for name in study.default_systems(registry) if name in names]


def campaign_params(study: MetgStudy, registry, systems: list[str], quick: bool, timeout: float,
                    platform: Platform, node_counts: list[int], steps: int, parent: str,
                    values: list[str] | None = None) -> dict:
    """The parent campaign's params: like metg_execute.campaign_params's, with a sweep per (node
    count, value), each labelled with its node count and storing the simulation it runs on; `values`
    (as typed): only the sweeps of these values."""
    builds = simulated_systems(registry, systems)
    runnable, unavailable = runnable_here(study.name, registry, builds)
    known = [str(s.value) for s in study.sweeps(quick, platform.cores_per_node)]
    unknown = [v for v in values or [] if v not in known]
    if unknown:
        raise UserError(f"--values: {', '.join(unknown)} not among study {study.name}'s values ({', '.join(known)})",
                        EXIT_USAGE)
    sweeps = []
    for nodes in node_counts:
        simulation = Simulation(platform, nodes)
        for sweep in study.sweeps(quick, simulation.cores):
            if values is not None and str(sweep.value) not in values:
                continue
            if values is None and study.simulated_values and not quick and sweep.value not in study.simulated_values:
                continue
            settings = {**base_settings(quick), **sweep.settings, "width": simulation.cores, "steps": steps,
                        "reps": 1, "tries": 1, "target_interval": 0.0, "start_iter": START_ITER,
                        "plan": BISECT, "simulation": simulation}
            params = SweepParams(systems=list(runnable), timeout=timeout, **settings)
            label = f"{sweep.label}_{nodes}n"
            sweeps.append({"value": sweep.value, "label": label, "nodes": nodes,
                           "campaign": f"{parent}-{label}", "params": params.to_dict()})
    notes = [f"SIMULATED on platform {platform.name} ({units.count(platform.cores_per_node, 'core')} a node, "
             f"{', '.join(map(str, node_counts))} nodes; {units.count(steps, 'step')}, one repetition, a bisection): "
             "simulated seconds, not measured here (docs/simulation.md)"]
    return {"study": study.name, "quick": quick, "systems": builds, "reps": 1, "retries": 0, "timeout": timeout,
            "cores": None, "unavailable": unavailable, "notes": notes, "sweeps": sweeps,
            "simulated": {"platform": platform.name, "path": str(platform.path), "sha256": platform.sha256,
                          "nodes": list(node_counts), "steps": steps}}


def is_simulated(params: dict) -> bool:
    return bool(params.get("simulated"))


def _seeds(found: dict, sweep: dict, before: dict | None) -> dict:
    """Where a new sweep's bisection looks first: the crossings of the same value at the largest
    node count run before (the METG moves little with the node count: 13.1 and 13.2 us at 16 and
    64 nodes for the communication graph's 16 B), else of the sweep just before it (the first
    node count: the previous value, whose crossing is the nearest one known)."""
    fewer = [n for n, v in found if v == sweep["value"] and n < sweep["nodes"]]
    if fewer:
        return dict(found.get((max(fewer), sweep["value"]), {}))
    return dict(found.get((before["nodes"], before["value"]), {})) if before is not None else {}


def run_sweeps(store, registry, params: dict, console, git_revision: str | None) -> campaign.ExecutionStats:
    """Every sweep not done yet, in the planned order; a new one seeded (_seeds) and the seed
    stored with it, so that a resumed sweep replays the same bisection."""
    total, found, before = campaign.ExecutionStats(), {}, None
    for i, sweep in enumerate(params["sweeps"], 1):
        child = sweep["campaign"]
        if not store.has_campaign(child):
            sweep_params = dataclasses.replace(SweepParams.from_dict(sweep["params"]),
                                               seeds=_seeds(found, sweep, before))
            campaign.create(store, child, "metg", sweep_params.to_dict(), git_revision)
        else:
            sweep_params = SweepParams.from_dict(store.campaign(child)["params"])  # its own seeds
        if store.campaign(child)["status"] != "done":
            console.note(f"[{i}/{len(params['sweeps'])}] {params['study']} {sweep['label']} (SIMULATED, "
                         f"{units.count(sweep['nodes'], 'node')}): {', '.join(sweep_params.systems)} "
                         f"-> campaign {child}")
            started = time.perf_counter()
            stats = campaign.run_sweep(store, registry, child, sweep_params, console, git_revision)
            console.note(f"{sweep['label']} simulated in {units.seconds(time.perf_counter() - started)} of wall time")
            total = dataclasses.replace(total, executed=total.executed + stats.executed,
                                        reused=total.reused + stats.reused, failed=total.failed + stats.failed)
        else:
            total = dataclasses.replace(total, reused=total.reused + len(store.runs(child)))
        analysis = analyze(store, child)
        store.set_campaign_results(child, results_record(analysis))
        found[(sweep["nodes"], sweep["value"])] = crossings(analysis)
        before = sweep
    return total


def node_counts(result) -> list[int]:
    return list(dict.fromkeys(s["nodes"] for s in result.params["sweeps"]))


def values_at(result, nodes: int) -> list[tuple[object, str]]:
    """(value, label) of the sweeps at one node count, in the preset's axis order."""
    return [(s["value"], s["label"]) for s in result.params["sweeps"] if s["nodes"] == nodes]


def published_at(study: MetgStudy, result, nodes: int) -> dict:
    """{value: seconds} the paper published for the study's graph at this node count, of the
    paper rows the simulated systems stand for; {} where it published none."""
    if study.published_at_nodes is None:
        return {}
    values = [v for v, _ in values_at(result, nodes)]
    return {label: dict(points) for label, points in study.published_at_nodes(values, nodes, paper_systems(result))}


def table(study: MetgStudy, result, figures: units.Figures = units.READABLE) -> tuple[list[str], list[list]]:
    """Rows: each simulated system at each node count (SIMULATED), and the paper's figure of that
    node count under it with the ratio; columns: the study's values."""
    values = list(dict.fromkeys(s["value"] for s in result.params["sweeps"]))
    columns = ["system (SIMULATED)", "nodes"] + [f"{study.parameter} {v}" for v in values]
    rows = []
    for nodes in node_counts(result):
        labels = dict(values_at(result, nodes))
        for system in result.systems:
            if system in result.unavailable:
                rows.append([system, nodes, f"not available: {result.unavailable[system]}"] + [""] * (len(values) - 1))
                continue
            cells = [result.cell(system, labels[v]) if v in labels else None for v in values]
            rows.append([f"{system} SIMULATED", nodes] + [
                "" if c is None else f"{figures.seconds(c.seconds) if figures.raw else c.text}{c.mark}"
                if c.seconds is not None else c.why_not for c in cells])
            for label, paper in published_at(study, result, nodes).items():
                row = [f"{label}: published (Cori, SC20)", nodes]
                for v, c in zip(values, cells):
                    if v not in paper:
                        row.append("not published")
                    elif c is not None and c.seconds:
                        ratio = c.seconds / paper[v]
                        row.append(f"{figures.seconds(paper[v])}" + ("" if figures.raw else f" (sim. {ratio:.2f}x)"))
                    else:
                        row.append(figures.seconds(paper[v]))
                rows.append(row)
    return columns, rows


def findings(study: MetgStudy, result) -> list[str]:
    return [f"paper: {study.paper}"] + list(result.params.get("notes") or [])


def figure(study: MetgStudy, result):
    """METG vs the study's parameter per (simulated system, node count), beside the paper's figure
    of the same node count; None before any METG."""
    curves, paper = {}, {}
    for nodes in node_counts(result):
        cells = {system: [(v, result.cell(system, label)) for v, label in values_at(result, nodes)]
                 for system in result.systems}
        curves[nodes] = {system: [(v, c.seconds) for v, c in points if c.seconds is not None]
                         for system, points in cells.items()}
        paper[nodes] = {label: sorted(points.items(), key=lambda vs: float(vs[0]))
                        for label, points in published_at(study, result, nodes).items()}
    return plots.simulated_metg_vs_parameter(study, result.name, result.params["simulated"]["platform"], curves, paper)


@dataclass(frozen=True)
class SimulatedView:
    """A METG study as its simulated result is shown: the table, findings and figure of this
    module, the preset's own attributes otherwise."""
    study: MetgStudy

    def __getattr__(self, name: str):
        return getattr(self.study, name)

    def table(self, result, figures: units.Figures = units.READABLE) -> tuple[list[str], list[list]]:
        return table(self.study, result, figures)

    def findings(self, result) -> list[str]:
        return findings(self.study, result)

    def figure(self, result):
        return figure(self.study, result)


def shown_as(study, result):
    """The study as the command and the report show `result`: its simulated view where the
    result ran under --simulate, else the preset itself."""
    simulated = study.kind == "metg" and is_simulated(result.params)  # only METG studies run simulated
    return SimulatedView(study) if simulated else study
