"""Two stored METG campaigns compared (`taskbench compare A B`): B/A per system and pattern, with
the ratio's range from the two 95% intervals, and "differ" only where those intervals do not
overlap (the range excludes 1).

Every way the two campaigns differ besides their systems (steps, width, pattern, kernel, radix,
scratch, graphs, more flags, threshold, METG method, machine, simulated platform) is named in one
line; a simulated campaign is never compared with a measured one, and A compared with itself says so.

A METG that its campaign marked unreliable keeps its mark here, and no B/A ratio is drawn from it
(one line says which and why) unless allowed. A campaign run on a busy machine says so, and so do
two campaigns whose CPUs passed cache lines at speeds more than CHANGED_FACTOR apart (their
fine-grained METGs measure different machines)."""

from __future__ import annotations

import math
import statistics

from taskbench import units
from taskbench.errors import EXIT_USAGE, UserError
from taskbench.measure.metg.reliability import busy_line
from taskbench.measure.placement import CHANGED_FACTOR


def _cell(curve, absent: str, raw: bool):
    if curve is None:
        return absent
    s = curve.summary
    return ("" if s.seconds is None else s.seconds) if raw else s.text + s.mark


def ratio_range(a, b) -> tuple[float, float | None, float | None]:
    """B/A and the range the two 95% intervals allow (None where either has none). An interval
    the data leave open (low 0, high infinite: measure/metg/fit.py) leaves the range open too."""
    if None in (a.low, a.high, b.low, b.high):
        return b.seconds / a.seconds, None, None
    high = math.inf if a.low <= 0 or math.isinf(b.high) else b.high / a.low
    return b.seconds / a.seconds, b.low / a.high, high


def ratio_text(ratio: float, low: float | None, high: float | None) -> tuple[str, str]:
    """("1.05x (0.97-1.14)", "differ" | "not told apart" | "—"): B/A with the range the two
    intervals allow (ratio_range); told apart only where that range excludes 1."""
    if low is None:
        return f"{ratio:.2f}x", "— (no interval)"
    upper = "unbounded" if math.isinf(high) else f"{high:.2f}"
    return f"{ratio:.2f}x ({low:.2f}–{upper})", "differ" if low > 1 or high < 1 else "not told apart"


def compare_rows(a, b, allow_unreliable: bool = False, raw: bool = False) -> tuple[list[list], list[str]]:
    """(rows, refusals): a refusal is the line of a ratio not drawn from an unreliable METG.
    raw (-q): the METGs in seconds, B/A and its range as numbers in columns of their own."""
    rows, refusals = [], []
    names = list(dict.fromkeys([*a.curves, *b.curves]))
    for name in names:
        ca, cb = a.curves.get(name), b.curves.get(name)
        ratio, apart, numbers = "—", "—", [None] * 3
        if ca and cb and ca.summary.seconds and cb.summary.seconds:
            numbers = list(ratio_range(ca.summary, cb.summary))
            ratio, apart = ratio_text(*numbers)
            which = units.ratio_bound(cb.summary.bound, ca.summary.bound)
            if which is None:
                ratio, apart, numbers = "both upper bounds: no ratio", "—", [None] * 3
            elif which:
                ratio, apart = which + ratio, "— (an upper bound)"
            unsure = [(c, which) for c, which in ((ca, f"in A ({a.name})"), (cb, f"in B ({b.name})"))
                      if c.summary.unreliable]
            if unsure and allow_unreliable:
                ratio += unsure[0][0].summary.mark
                apart += unsure[0][0].summary.mark if raw else ""
            elif unsure:
                ratio, apart, numbers = "unreliable", "—", ["unreliable", None, None]
                refusals += [c.summary.refusal(name, which, "B/A ratio") for c, which in unsure]
        shown = ["" if v is None else v for v in numbers] if raw else [ratio]
        rows.append([name, f"{a.params.pattern}/{a.params.kernel}", f"{b.params.pattern}/{b.params.kernel}",
                     _cell(ca, "not in A", raw), _cell(cb, "not in B", raw), *shown, apart])
    return rows, refusals


def one_way_ns(analysis) -> float | None:
    """The campaign's typical core-to-core latency in ns: the median of its placement probes (or
    the faster of the start and end probes of a campaign made before them); None if it has none."""
    machine = analysis.campaign.get("machine") or {}
    series = [p["one_way_ns"] for p in machine.get("placement_probes") or []]
    if series:
        return statistics.median(series)
    probes = [p for p in machine.get("core_to_core_one_way_ns") or [] if p]
    return min(probes) if probes else None


def context_lines(a, b) -> list[str]:
    """What makes the two campaigns' figures less comparable than they look."""
    lines = [f"{c.name}: {busy_line(c.busy)}" for c in (a, b) if c.busy is not None]
    pa, pb = one_way_ns(a), one_way_ns(b)
    if pa and pb and max(pa, pb) > CHANGED_FACTOR * min(pa, pb):
        lines.append(f"the campaigns ran on differently placed CPUs: a cache line took {pa:.0f} ns one way in A "
                     f"and {pb:.0f} ns in B, more than {CHANGED_FACTOR:g}x apart: their fine-grained METGs are "
                     "not comparable (docs/harness.md, Placement)")
    return lines


def _simulated(c) -> str | None:
    """"simulated on small, 4 nodes" for a simulated campaign, None for a measured one."""
    simulation = c.params.simulation
    if not simulation:
        return None
    return f"simulated on {simulation.platform.name}, {units.count(simulation.nodes, 'node')}"


def _machine(c) -> str:
    machine = c.campaign.get("machine") or {}
    if machine.get("hosts"):
        described = c.params.cluster.path if c.params.cluster else "a cluster"
        return f"{units.count(len(machine['hosts']), 'host')} of {described}"
    cpus = machine.get("available_cpus")
    return f"{machine.get('hostname', '?')}, {machine.get('cpu_model', '?')}" + (
        f", {units.count(cpus, 'CPU')}" if cpus else "")


# What the two campaigns' figures depend on besides their systems, as the user gave it.
SETTINGS = (("steps", lambda p: p.steps), ("width", lambda p: p.width), ("pattern", lambda p: p.pattern),
            ("kernel", lambda p: p.kernel), ("radix", lambda p: "the core's default" if p.radix is None else p.radix),
            ("scratch", lambda p: p.scratch or 0), ("graphs", lambda p: p.graphs),
            ("more flags", lambda p: " ".join(p.extra_flags) or "none"),
            ("threshold", lambda p: f"{p.threshold:.0%}"), ("METG method", lambda p: p.metg_method))


def differences(a, b) -> list[str]:
    """Each way the campaigns differ besides their systems: "steps (A 200, B 20)"."""
    found = [f"{what} (A {of(a.params)}, B {of(b.params)})" for what, of in SETTINGS if of(a.params) != of(b.params)]
    if _simulated(a) != _simulated(b):
        found.append(f"platform (A {_simulated(a)}, B {_simulated(b)})")
    elif a.campaign.get("machine_id") != b.campaign.get("machine_id") and not _simulated(a):
        found.append(f"machine (A {_machine(a)}, B {_machine(b)})")
    return found


def _refuse_measured_against_simulated(a, b) -> None:
    if bool(_simulated(a)) != bool(_simulated(b)):
        simulated, measured = (a, b) if _simulated(a) else (b, a)
        raise UserError(f"{simulated.name} is {_simulated(simulated)}, {measured.name} measured on "
                        f"{_machine(measured)}: a simulated METG is never compared with a measured one "
                        "(docs/simulation.md)", EXIT_USAGE)



def comparable(a, b) -> None:
    """Refuses what is never compared: a campaign not of kind metg, a simulated METG and a
    measured one."""
    for c in (a, b):
        if c.campaign["kind"] != "metg":
            raise UserError(f"campaign '{c.name}' is a {c.campaign['kind']} campaign, not metg", EXIT_USAGE)
    _refuse_measured_against_simulated(a, b)


def warnings(a, b) -> list[str]:
    """The lines under the table: A compared with itself, or every way the two differ besides
    their systems; then what makes their figures less comparable than they look, each once."""
    if a.name == b.name:
        lines = [f"A and B are the same campaign ({a.name}): every B/A is 1 by construction; name two "
                 "campaigns (`taskbench campaigns` lists them)"]
    else:
        found = differences(a, b)
        lines = [f"A and B differ in more than their systems: {'; '.join(found)}; each B/A carries "
                 "these differences too"] if found else []
    return lines + list(dict.fromkeys(context_lines(a, b)))  # A against itself: its lines once
