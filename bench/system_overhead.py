"""Per-task overhead of every built local system: empty kernel, stencil_1d, width = cores,
1000 steps. Overhead per task = elapsed x cores / tasks (the report's task granularity); wall
per task = elapsed / tasks. Local systems are those that run on this host alone: `local`,
`dask` (a Dask cluster of one worker process per core), `loopback` (Ray) and `mpirun` (its
default ranks on this host) launchers.
Systems are interleaved in each round and the best of N rounds is kept. Prints figures only.

    python3 bench/system_overhead.py [--rounds 7] [--steps 1000] [--pattern stencil_1d] [--build build]
                                     [--systems serial,python_serial]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from taskbench.launch import LaunchOptions, plan  # noqa: E402  (the harness's registry and launchers)
from taskbench.registry import Registry  # noqa: E402
from taskbench.registry.locations import find_layout  # noqa: E402


LOCAL_LAUNCHERS = ("local", "dask", "loopback", "mpirun")


def local_systems(build: str) -> list:
    return [s for s in Registry(find_layout(build)) if s.available and s.launcher in LOCAL_LAUNCHERS]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--pattern", default="stencil_1d")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--systems", help="comma-separated names (default: every available local system)")
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    systems = local_systems(args.build)
    if args.systems:
        wanted = args.systems.split(",")
        unknown = set(wanted) - {s.name for s in systems}
        if unknown:
            sys.exit(f"not available here as local systems: {', '.join(sorted(unknown))}")
        systems = [s for s in systems if s.name in wanted]
    best: dict[str, float] = {}
    wall: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        for _ in range(args.rounds):
            for s in systems:
                flags = ["-steps", str(args.steps), "-width", str(cores), "-type", args.pattern,
                         "-kernel", "empty", "-json", str(report)]
                launch = plan(s, flags, LaunchOptions())
                subprocess.run(launch.argv, check=True, env=launch.env, stdout=subprocess.DEVNULL)
                r = json.loads(report.read_text())
                ns = r["task_granularity_seconds"] * 1e9
                if ns < best.get(s.name, float("inf")):
                    best[s.name], wall[s.name] = ns, r["elapsed_seconds"] * 1e9 / r["totals"]["tasks"]
    print(f"{args.pattern}, empty kernel, {args.steps} steps x {cores} points, best of {args.rounds} interleaved rounds")
    for name, ns in sorted(best.items(), key=lambda kv: kv[1]):
        print(f"  {name:24s} {ns:12.1f} ns per task ({wall[name]:12.1f} ns wall per task)")


if __name__ == "__main__":
    main()
