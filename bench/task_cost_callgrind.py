#!/usr/bin/env python3
"""Instructions per task, by function, independent of the machine's load: each system runs
under `valgrind --tool=callgrind` at two sizes (stencil_1d, empty kernel), and the difference of
the two runs' instruction counts, divided by the difference of their task counts, is what one
more task costs: start-up, registration and shutdown cancel out. Inclusive counts per function
come from callgrind_annotate, summed over threads (callgrind runs them one at a time, so a
worker's idle polling is counted too and shows up as noise in the total, not in the functions).

SYSTEM is a registry entry (its binary, args, env and threads flag), optionally with extra
environment variables. With one worker (--workers 1) no thread's spinning is counted at all.

Usage: bench/task_cost_callgrind.py [--steps 200,400] [--width 2] [--workers 2]
           [--build build] [--top 25] SYSTEM[:VAR=VALUE,...] ...
e.g.   bench/task_cost_callgrind.py starpu starpu_eager openmp_task openmp_for:OMP_WAIT_POLICY=passive
       bench/task_cost_callgrind.py --workers 1 tbb_tasks tbb_flow tbb_flow_persistent rust_rayon
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from systems import registry  # noqa: E402  (the tests' reader of systems/*/system.toml)

LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:\*\s+)?(?:[^:]*:)?(\S.*?)(?:\s+\[.*\])?$")


def callgrind(command: list[str], env: dict, out: Path) -> dict[str, int]:
    """Inclusive instruction count per function name for one run."""
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
                   env=env, check=True, capture_output=True)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                          check=True, capture_output=True, text=True).stdout
    counts: dict[str, int] = {}
    total = re.search(r"([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS", text)
    counts["(total)"] = int(total.group(1).replace(",", "")) if total else 0
    for line in text.splitlines():
        m = LINE.match(line)
        if m and "PROGRAM TOTALS" not in line:
            name = m.group(2).strip()
            counts[name] = counts.get(name, 0) + int(m.group(1).replace(",", ""))
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("systems", nargs="+")
    p.add_argument("--steps", default="200,400")
    p.add_argument("--width", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--build", default="build")
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args()
    small, large = (int(s) for s in a.steps.split(","))
    tasks = (large - small) * a.width
    entries = {s.name: s for s in registry()}
    for spec in a.systems:
        name, _, assigns = spec.partition(":")
        if name not in entries:
            sys.exit(f"task_cost_callgrind: no registry entry {name!r}")
        system = entries[name]
        env = {**system.env(), **dict(kv.split("=", 1) for kv in assigns.split(",") if kv)}
        binary = Path(a.build) / "bin" / system.entry.get("binary", name)
        threads = [system.entry.get("threads_flag", "-worker"), str(a.workers)]
        runs = []
        with tempfile.TemporaryDirectory() as tmp:
            for steps in (small, large):
                args = ["-steps", str(steps), "-width", str(a.width), "-type", "stencil_1d", *threads]
                command = [str(binary), *system.entry.get("args", []), *args]
                runs.append(callgrind(command, env, Path(tmp) / f"{steps}.out"))
        per_task = {f: (runs[1].get(f, 0) - runs[0].get(f, 0)) / tasks for f in runs[1]}
        print(f"== {spec}: instructions per task ({large}-{small} steps x {a.width}, {a.workers} workers)")
        for f, n in sorted(per_task.items(), key=lambda kv: -kv[1])[: a.top]:
            print(f"{n:10.0f}  {f}")


if __name__ == "__main__":
    main()
