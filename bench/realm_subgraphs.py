#!/usr/bin/env python3
"""Per empty task, realm_driver (one spawn per task) beside realm_driver_subgraph's variants
and realm (the paper's port).

The variants: a Subgraph per row (the registry's realm_driver_subgraph), per K rows (wired
inside, -subgraph-rows K), and each with its outside preconditions merged once per instance
(-subgraph-merge); and the paper's port (shard tasks, a Subgraph per window, phase barriers).
Rounds interleave every variant; the best of N is kept: elapsed × workers / tasks of stencil_1d
(empty kernel), with its ratio to realm_driver's, and the issuing share: the time until the
driver (or the slowest shard) had handed every task to Realm (spawns or instantiations, the
report's issue_seconds) over the run's, and that time per task. Prints figures only (issue 50,
item 2; docs/task-runtimes.md).

  bench/realm_subgraphs.py [--rounds 5] [--steps 1000] [--widths 2,16] [--workers 2] [--rows 4,16,64]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELAPSED = re.compile(r"^Elapsed Time ([0-9.eE+-]+) seconds", re.M)


def variants(rows: list[int]) -> dict[str, list[str]]:
    out = {"realm_driver": ["-driver"], "realm_driver_subgraph (1 row)": ["-driver", "-subgraph"],
           "1 row, merged": ["-driver", "-subgraph", "-subgraph-merge"]}
    for k in rows:
        out[f"{k} rows"] = ["-driver", "-subgraph", "-subgraph-rows", str(k)]
        out[f"{k} rows, merged"] = ["-driver", "-subgraph", "-subgraph-rows", str(k), "-subgraph-merge"]
    out["realm (the paper's port)"] = []
    return out


def measure(binary: Path, flags: list[str], width: int, args, report: Path) -> tuple[float, float]:
    """(thread time per task, issue time / elapsed) of one run."""
    graph = ["-steps", str(args.steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "empty",
             "-worker", str(args.workers), "-json", str(report)]
    out = subprocess.run([str(binary), *flags, *graph], capture_output=True, text=True, timeout=300,
                         check=True).stdout
    elapsed = float(ELAPSED.search(out).group(1))
    issued = float(json.loads(report.read_text())["system_report"]["issue_seconds"])
    return elapsed * args.workers / (args.steps * width), issued / elapsed


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--widths", default="2,16", help="points per row, comma-separated (2,16)")
    p.add_argument("--workers", type=int, default=2, help="Realm CPU processors (2)")
    p.add_argument("--rows", default="4,16,64", help="rows per Subgraph to try beside 1 (4,16,64)")
    p.add_argument("--build", default=str(ROOT / "build"))
    args = p.parse_args()
    binary = Path(args.build, "bin", "realm")
    if not binary.is_file():
        sys.exit(f"{binary} is not built (scripts/install-large-engines.sh, then a configure of the build)")
    runs = variants([int(k) for k in args.rows.split(",") if k])
    widths = [int(w) for w in args.widths.split(",")]
    best = {(name, w): (float("inf"), 0.0) for name in runs for w in widths}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp, "report.json")
        for _ in range(args.rounds):
            for w in widths:
                for name, flags in runs.items():
                    best[name, w] = min(best[name, w], measure(binary, flags, w, args, report))
    for w in widths:
        base = best["realm_driver", w][0]
        print(f"stencil_1d {args.steps} x {w}, empty kernel, {args.workers} processors, best of {args.rounds} "
              "interleaved rounds: thread time per task, ratio to realm_driver, issuing / run, "
              "issuing per task")
        for name in runs:
            per_task, issuing = best[name, w]
            print(f"{per_task * 1e9:9.0f} ns  {per_task / base:5.2f}x  {issuing:4.0%}  "
                  f"{issuing * per_task / args.workers * 1e9:6.0f} ns  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
