"""The METG per node count a prediction (predict.py) starts from, besides one given as a figure:
a system's METG in a stored metg campaign, or the SC20 paper's published METG per node count of
one of its systems (its Fig. 9 series), by the label the paper prints, the published name, or a
system here that runs a paper row."""

from __future__ import annotations

from taskbench import units
from taskbench.errors import EXIT_UNRELIABLE, EXIT_USAGE, UserError, did_you_mean
from taskbench.measure.analysis import analyze
from taskbench.reference import published, sc20


def stored_metg(ctx, system: str, campaign: str | None, allow_unreliable: bool) -> float:
    """The METG of `system` in a stored metg campaign (the latest that measured it, unless
    named), refused where its campaign marked it unreliable unless `allow_unreliable`."""
    store = ctx.store
    if campaign is None:
        named = [c for c in store.campaigns("metg") if system in c["params"].get("systems", [])]
        if not named and system not in ctx.registry.systems:  # neither measured nor measurable here
            raise _unknown_system(ctx, system, sorted({n for c in store.campaigns("metg")
                                                      for n in c["params"].get("systems", [])}))
        if not named:
            raise UserError(f"no stored metg campaign measured '{system}' (run `{ctx.command('metg', system)}`)",
                            EXIT_USAGE)
        campaign = named[-1]["name"]
    analysis = analyze(store, campaign)
    curve = analysis.curves.get(system)
    if curve is None:
        raise UserError(f"campaign '{campaign}' did not measure '{system}'", EXIT_USAGE)
    if curve.summary.seconds is None:
        raise UserError(f"{system} has no METG in campaign '{campaign}': {curve.summary.text_status}", EXIT_USAGE)
    if curve.summary.unreliable and not allow_unreliable:
        raise UserError(curve.summary.refusal(system, f"in campaign '{campaign}'", "prediction"), EXIT_UNRELIABLE)
    if curve.summary.unreliable:
        ctx.console.warn(f"{system}'s METG in campaign '{campaign}' is unreliable "
                         f"({'; '.join(curve.summary.unreliable)}): so is this prediction")
    if getattr(curve, "cores", None) == 1:  # serial, python_serial: no runtime between cores at all
        ctx.console.warn(f"{system} runs on one core: its METG is one core's, with no runtime between cores, not a "
                         "parallel system's; the nodes below are scaled from it as if a runtime cost nothing more "
                         "(a parallel system's --system, or --metg, for a machine's)")
    ctx.console.note(f"METG({analysis.params.threshold:.0%}) of {system}: {units.seconds(curve.summary.seconds)}"
                     f"{curve.summary.mark} "
                     f"(campaign {campaign}, {units.count(analysis.nodes, 'node')}); METG rises with node count, "
                     "give --metg NODES=SECONDS for larger machines")
    return curve.summary.seconds


def _unknown_system(ctx, system: str, measured: list[str]) -> UserError:
    """A name neither measured in the store nor a system here: a typo, never `taskbench metg NAME`."""
    return UserError(f"--system {system}: no stored metg campaign measured it, and no system here has that "
                     f"name{did_you_mean(system, [*measured, *ctx.registry.systems])} (`taskbench systems` lists "
                     "them)", EXIT_USAGE)


def _paper_system(ctx, name: str, rows: list[dict]) -> str:
    """The published data's name of the system --reference-system names: a label the paper prints
    (the one its figures show where two share it), a published name, or a registry entry that runs
    a paper row (its `paper_system`)."""
    by_label: dict[str, str] = {}
    for r in sorted(rows, key=lambda r: r["visible"] != "True"):  # shown rows first
        by_label.setdefault(r["label"], r["system"])
    published_names = {r["system"] for r in rows}
    ports = {s.name: s.paper_system for s in ctx.registry if s.paper_system in published_names}
    for table in ({n: n for n in published_names}, by_label, ports):
        if name in table:
            return table[name]
    names = sorted(by_label) + sorted(published_names) + sorted(ports)
    raise UserError(f"--reference-system {name}: not a system the paper published{did_you_mean(name, names)} "
                    f"(`taskbench reference --all` lists them, with the systems here that run their rows)",
                    EXIT_USAGE)


def published_metg(ctx, name: str, pattern: str) -> dict[int, float]:
    """The paper's METG at each node count it published for this system (its Fig. 9 series)."""
    rows = [r for r in sc20.shipped("compute") if r["ngraphs"] == 1 and r["metg_seconds"]]
    system = _paper_system(ctx, name, rows)
    label = published.label_of(system)
    table = published.metg_by_nodes(system, pattern)
    if not table:
        patterns = sorted({r["pattern"] for r in rows if r["system"] == system})
        raise UserError(f"--pattern {pattern}: the paper published {label} for {', '.join(patterns)}", EXIT_USAGE)
    ctx.console.note(f"METG per node count: {published.LABEL}, {label} ({system}), {pattern}, 1 graph, the paper's "
                     f"definition ({units.count(len(table), 'node count')}; docs/reference.md)")
    return table
