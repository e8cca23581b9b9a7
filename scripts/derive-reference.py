#!/usr/bin/env python3
"""Writes the shipped reference data sets (python/taskbench/reference/data/sc20-*.csv) again
from a checkout of StanfordLegion/task-bench-results at commit cd2fa42:

    scripts/derive-reference.py PATH/TO/task-bench-results [--out FOLDER]

The files it writes are byte for byte the shipped ones (tests/reference checks it)."""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from taskbench.reference import sc20  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a checkout of the results repository (legend.csv at its top)")
    parser.add_argument("--out", type=Path, default=sc20.DATA, help=f"where to write (default {sc20.DATA})")
    args = parser.parse_args()
    if not (args.source / "legend.csv").is_file():
        parser.error(f"{args.source}: no legend.csv (not a checkout of {sc20.SOURCE})")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in sc20.written(args.source).items():
        (args.out / name).write_text(text)
        print(f"{args.out / name}: {text.count(chr(10)) - 5} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
