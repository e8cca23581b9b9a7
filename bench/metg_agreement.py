#!/usr/bin/env python3
"""Do METG campaigns of the same graph agree? The quick starts of one machine, run back to back,
read from a store (issue 49's acceptance; docs/harness.md, "How far a METG holds still"):

    .venv/bin/python bench/metg_agreement.py --db taskbench.db QUIET... [--loaded NAME...]

Prints each system's METG with its interval in every campaign, then per system: in how many quiet
campaigns its METG is reliable, whether each quiet METG lies within every other quiet one's
interval or within 10% of it, and whether each loaded campaign's METG lies within 15% of the
quiet ones' median or is marked unreliable. Exits 0 either way: a figure, not a test."""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from taskbench.measure.analysis import analyze  # noqa: E402
from taskbench.store import Store  # noqa: E402

QUIET_TOLERANCE, LOADED_TOLERANCE = 0.10, 0.15


def agrees(metg: float, other) -> bool:
    """Within the other campaign's interval, or within QUIET_TOLERANCE of its METG."""
    inside = other.low is not None and other.low <= metg <= other.high
    return inside or abs(metg / other.seconds - 1) <= QUIET_TOLERANCE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="taskbench.db")
    parser.add_argument("quiet", nargs="+", help="campaigns run on a quiet machine")
    parser.add_argument("--loaded", action="append", default=[], help="a campaign run beside other processes")
    args = parser.parse_args()
    store = Store(Path(args.db), read_only=True)
    quiet = {name: analyze(store, name) for name in args.quiet}
    loaded = {name: analyze(store, name) for name in args.loaded}
    systems = list(dict.fromkeys(s for a in [*quiet.values(), *loaded.values()] for s in a.curves))
    for name, a in [*quiet.items(), *loaded.items()]:
        print(f"{name}{' (loaded)' if name in loaded else ''}:")
        for system in systems:
            curve = a.curves.get(system)
            if curve is not None:
                s = curve.summary
                print(f"  {system:16s} {s.text + s.mark:40s} {'; '.join(s.unreliable)[:110]}")
    print("per system:")
    for system in systems:
        summaries = [a.curves[system].summary for a in quiet.values() if system in a.curves]
        reliable = sum(s.reliable for s in summaries)
        found = [s for s in summaries if s.seconds is not None]
        hold = all(agrees(s.seconds, o) for s in found for o in found if o is not s)
        line = (f"  {system:16s} reliable in {reliable} of {len(summaries)} quiet campaigns; each within the "
                f"others' intervals or 10%: {'yes' if hold and len(found) == len(summaries) else 'NO'}")
        if found:
            middle = statistics.median(s.seconds for s in found)
            for name, a in loaded.items():
                s = a.curves[system].summary if system in a.curves else None
                if s is None:
                    continue
                near = s.seconds is not None and abs(s.seconds / middle - 1) <= LOADED_TOLERANCE
                verdict = "within 15%" if near else ("marked unreliable" if s.unreliable else "NEITHER")
                line += f"; {name}: {verdict}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
