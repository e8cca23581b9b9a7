#!/usr/bin/env python3
"""openmp_task's two designs side by side, on both runtimes, beside the original Task Bench's
openmp/main if given: the paper's algorithm (openmp_task, openmp_task_llvm) and the creation
windows (openmp_task_window, openmp_task_window_llvm), each with its registry environment, run
interleaved on stencil_1d 1000 x 2 (-field 2, the paper's), compute_bound at each -iter given,
best of N rounds; per system the elapsed time, thread time per task (elapsed x threads / tasks)
and efficiency against serial's time for the same tasks. Prints figures only
(systems/openmp_task/README.md).

  bench/openmp_task_designs.py [--build build] [--rounds 7] [--threads 2]
      [--original NAME=COMMAND ...] [ITER ...]     (default -iter 0 2048 16384)

An original runs with OMP_PROC_BIND=spread (the paper's launch) and gets `-worker THREADS`, e.g.
--original "orig_gomp=/path/to/task-bench/openmp/main".
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("openmp_task", "openmp_task_llvm", "openmp_task_window", "openmp_task_window_llvm")
ELAPSED = re.compile(r"^Elapsed Time ([0-9.eE+-]+) seconds", re.M)


def entries() -> dict[str, tuple[list[str], dict]]:
    """name: (binary and args, environment) from systems/openmp_task/system.toml."""
    registry = tomllib.loads((ROOT / "systems" / "openmp_task" / "system.toml").read_text())
    return {e["name"]: ([e["binary"], *e.get("args", [])], e.get("env", {})) for e in registry["system"]}


def elapsed(command: list[str], env: dict) -> float:
    out = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, timeout=600,
                         check=True).stdout
    return float(ELAPSED.search(out).group(1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", type=Path, default=ROOT / "build")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--original", action="append", default=[], metavar="NAME=COMMAND")
    p.add_argument("iters", nargs="*", type=int, default=[0, 2048, 16384])
    a = p.parse_args()
    found = entries()
    runs = {name: ([str(a.build / "bin" / found[name][0][0]), *found[name][0][1:]], found[name][1])
            for name in SYSTEMS}
    for spec in a.original:
        name, command = spec.split("=", 1)
        runs[name] = (shlex.split(command), {"OMP_PROC_BIND": "spread"})
    width, steps = 2, 1000
    for it in a.iters:
        graph = ["-steps", str(steps), "-width", str(width), "-type", "stencil_1d", "-kernel", "compute_bound",
                 "-iter", str(it), "-field", "2"]
        best = {name: float("inf") for name in runs}
        serial = float("inf")
        for _ in range(a.rounds):  # interleaved: every system once per round
            serial = min(serial, elapsed([str(a.build / "bin" / "serial"), *graph], {}))
            for name, (command, env) in runs.items():
                best[name] = min(best[name], elapsed([*command, *graph, "-worker", str(a.threads)], env))
        tasks = steps * width
        print(f"-iter {it}: serial {serial / tasks * 1e6:.2f} us a task; best of {a.rounds}; "
              f"load {os.getloadavg()[0]:.1f}")
        for name, t in best.items():
            print(f"  {name:26} {t * 1e3:9.2f} ms  {t * a.threads / tasks * 1e6:8.2f} us thread time per task"
                  f"  efficiency {serial / (a.threads * t):.2f}")


if __name__ == "__main__":
    main()
