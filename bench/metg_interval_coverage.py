#!/usr/bin/env python3
"""How often the METG's 95% interval (python/taskbench/measure/metg/fit.py) covers the true
METG, by number of repetitions: synthetic curves of a constant per-task overhead, every run's
efficiency off by a relative noise, the "true" METG the fit of 4000 repetitions.

    .venv/bin/python bench/metg_interval_coverage.py [--trials 200] [--noise 0.05]

Prints, per number of repetitions, the share of trials whose interval holds the true METG with
the plain percentile interval and with the expanded one the harness uses (docs/harness.md)."""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from taskbench.measure.metg import fit as metg_fit  # noqa: E402

OVERHEAD = 250e-9
SIZES = [65536, 16384, 4096, 1024, 724, 512, 362, 256, 181, 128, 64, 16, 4, 1]


def points(reps: int, noise: float, rng) -> metg_fit.Points:
    rows = []
    for rep in range(reps):
        for it in SIZES:
            w = it * 1e-9
            e = w / (w + OVERHEAD) * (1 + rng.normal(0, noise))
            rows.append((it, rep, w / e, e))
    return metg_fit.Points.of(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--noise", type=float, default=0.05, help="relative noise of a run's efficiency (0.05)")
    args = parser.parse_args()
    truth = metg_fit.fit(points(4000, args.noise, np.random.default_rng(99)), 0.5).seconds
    print(f"true METG {truth * 1e9:.1f} ns (constant overhead {OVERHEAD * 1e9:.0f} ns, noise {args.noise:.0%})")
    print("repetitions  plain percentile  expanded percentile  median half-width (expanded)")
    expanded_level = metg_fit.expanded_level
    for reps in (3, 5, 6, 9, 20):
        covered = {"plain": 0, "expanded": 0}
        widths = []
        for trial in range(args.trials):
            sample = points(reps, args.noise, np.random.default_rng(1000 * reps + trial))
            for kind, level in (("plain", lambda n: metg_fit.CONFIDENCE), ("expanded", expanded_level)):
                metg_fit.expanded_level = level
                low, high = metg_fit.interval(sample, 0.5, seed=trial, resamples=1000)
                covered[kind] += low <= truth <= high
                if kind == "expanded":
                    widths.append((high - low) / 2 / metg_fit.fit(sample, 0.5).seconds)
        metg_fit.expanded_level = expanded_level
        print(f"{reps:11d}  {covered['plain'] / args.trials:16.0%}  {covered['expanded'] / args.trials:19.0%}"
              f"  ±{np.median(widths):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
