#!/usr/bin/env python3
"""Do METG intervals hold for the next campaign? N campaigns of one graph on one machine (e.g.
six quick starts back to back) read from a store, and any run beside other processes (issue 60's
acceptance; docs/harness.md, "How far a METG holds still"):

    .venv/bin/python bench/metg_agreement.py --db taskbench.db QUIET... [--loaded NAME...]

Prints each system's METG with its interval in every campaign, then per system over the quiet
campaigns: in how many it is reliable; the coverage, the share of ordered pairs of campaigns
(A, B) whose METG of A lies inside B's interval; the largest bound, max(high / METG, METG /
low) over the campaigns; and the median half-width against half the range of the campaigns'
METGs (how much wider the intervals are than the reruns need). Each loaded campaign's METG
lies within the quiet ones' intervals (any of them) or is marked unreliable. Pooled over the
parallel systems at the end. Exits 0 either way: a figure, not a test."""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from taskbench.measure.analysis import analyze  # noqa: E402
from taskbench.store import Store  # noqa: E402


def coverage(summaries) -> tuple[int, int]:
    """(pairs (A, B) with A's METG inside B's interval, pairs): ordered, A != B, both found."""
    found = [s for s in summaries if s.seconds is not None]
    inside = pairs = 0
    for a in found:
        for b in found:
            if a is not b:
                pairs += 1
                inside += b.low is not None and b.low <= a.seconds <= b.high
    return inside, pairs


def largest_bound(summaries) -> float | None:
    ratios = [max(s.high / s.seconds, s.seconds / s.low) for s in summaries
              if s.seconds is not None and s.low and s.high]
    return max(ratios) if ratios else None


def width_against_range(summaries) -> float | None:
    """Median half-width (as a fraction of each METG) over half the METGs' range (as a fraction
    of their median): 1 is as wide as the reruns need, above 1 wider."""
    found = [s for s in summaries if s.seconds is not None]
    widths = [s.half_width for s in found if s.half_width is not None]
    if len(found) < 2 or not widths:
        return None
    metgs = [s.seconds for s in found]
    spread = (max(metgs) - min(metgs)) / 2 / statistics.median(metgs)
    return statistics.median(widths) / spread if spread > 0 else None


def markdown(systems, quiet, loaded) -> None:
    """| system | each campaign's METG (interval) |, the loaded ones' with why they are unreliable."""
    names = [*quiet, *loaded]
    print("| system | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for system in systems:
        cells = []
        for a in [*quiet.values(), *loaded.values()]:
            s = a.curves[system].summary if system in a.curves else None
            cells.append("—" if s is None else s.text + s.mark)
        print(f"| {system} | " + " | ".join(cells) + " |")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="taskbench.db")
    parser.add_argument("quiet", nargs="+", help="campaigns run on a quiet machine")
    parser.add_argument("--loaded", action="append", default=[], help="a campaign run beside other processes")
    parser.add_argument("--markdown", action="store_true", help="the campaigns' METGs as a Markdown table first")
    args = parser.parse_args()
    store = Store(Path(args.db), read_only=True)
    quiet = {name: analyze(store, name) for name in args.quiet}
    loaded = {name: analyze(store, name) for name in args.loaded}
    systems = list(dict.fromkeys(s for a in [*quiet.values(), *loaded.values()] for s in a.curves))
    if args.markdown:
        markdown(systems, quiet, loaded)
    for name, a in [*quiet.items(), *loaded.items()]:
        print(f"{name}{' (loaded)' if name in loaded else ''}:")
        for system in systems:
            curve = a.curves.get(system)
            if curve is not None:
                s = curve.summary
                print(f"  {system:16s} {s.text + s.mark:44s} {'; '.join(s.unreliable)[:110]}")
    print(f"per system, over {len(quiet)} quiet campaigns:")
    pooled_inside = pooled_pairs = 0
    for system in systems:
        summaries = [a.curves[system].summary for a in quiet.values() if system in a.curves]
        reference = any(a.curves[system].reference for a in quiet.values() if system in a.curves)
        inside, pairs = coverage(summaries)
        if not reference:
            pooled_inside, pooled_pairs = pooled_inside + inside, pooled_pairs + pairs
        bound, width = largest_bound(summaries), width_against_range(summaries)
        line = (f"  {system:16s} reliable in {sum(s.reliable for s in summaries)} of {len(summaries)}; "
                f"coverage {inside}/{pairs}" + (f" ({inside / pairs:.0%})" if pairs else "")
                + (f"; largest bound {bound:.2f}x" if bound else "")
                + (f"; median half-width {width:.2f}x half the METGs' range" if width else ""))
        found = [s for s in summaries if s.seconds is not None]
        for name, a in loaded.items():
            s = a.curves[system].summary if system in a.curves else None
            if s is None or not found:
                continue
            held = s.seconds is not None and any(q.low is not None and q.low <= s.seconds <= q.high for q in found)
            line += f"; {name}: " + ("within the quiet intervals" if held else
                                      "marked unreliable" if s.unreliable else "NEITHER")
        print(line)
    if pooled_pairs:
        print(f"parallel systems pooled: coverage {pooled_inside}/{pooled_pairs} ({pooled_inside / pooled_pairs:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
