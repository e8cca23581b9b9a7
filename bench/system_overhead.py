"""Per-task overhead of every built local system: empty kernel, stencil_1d, width = cores,
1000 steps. Overhead per task = elapsed x cores / tasks (the report's task granularity); wall
per task = elapsed / tasks. Local systems are those that run on this host alone: `local`,
`dask` (a Dask cluster of one worker process per core), `loopback` (Ray) and `mpirun` (its
default ranks on this host) launchers.
Systems are interleaved in each round and the best of N rounds is kept. Prints figures only.
Another suite's port (e.g. the original Task Bench's binaries) joins the rounds with --external
NAME=CORES:COMMAND, as in `taskbench metg`: COMMAND gets the same Task Bench flags, and its
"Total Tasks" and "Elapsed Time" summary lines give its figures (on CORES cores).

    python3 bench/system_overhead.py [--rounds 7] [--steps 1000] [--pattern stencil_1d] [--build build]
                                     [--systems serial,python_serial] [--external NAME=CORES:COMMAND ...]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from taskbench.launch import LaunchOptions, command as launch_command  # noqa: E402  (the harness's launchers)
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
    ap.add_argument("--external", action="append", default=[], metavar="NAME=CORES:COMMAND",
                    help="another suite's port, run with the same flags (repeatable)")
    args = ap.parse_args()
    externals = [external(text) for text in args.external]
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
        flags = ["-steps", str(args.steps), "-width", str(cores), "-type", args.pattern, "-kernel", "empty"]
        for _ in range(args.rounds):
            for s in systems:
                launch = launch_command(s, [*flags, "-json", str(report)], LaunchOptions())
                subprocess.run(launch.argv, check=True, env=launch.env, stdout=subprocess.DEVNULL)
                r = json.loads(report.read_text())
                ns = r["task_granularity_seconds"] * 1e9
                if ns < best.get(s.name, float("inf")):
                    best[s.name], wall[s.name] = ns, r["elapsed_seconds"] * 1e9 / r["totals"]["tasks"]
            for name, ext_cores, command in externals:
                out = subprocess.run([*command, *flags], check=True, capture_output=True, text=True).stdout
                elapsed, tasks = summary_line(out, name, "Elapsed Time"), summary_line(out, name, "Total Tasks")
                ns = elapsed * ext_cores / tasks * 1e9
                if ns < best.get(name, float("inf")):
                    best[name], wall[name] = ns, elapsed * 1e9 / tasks
    print(f"{args.pattern}, empty kernel, {args.steps} steps x {cores} points, best of {args.rounds} interleaved rounds")
    for name, ns in sorted(best.items(), key=lambda kv: kv[1]):
        print(f"  {name:24s} {ns:12.1f} ns per task ({wall[name]:12.1f} ns wall per task)")


def external(text: str) -> tuple[str, int, list[str]]:
    """NAME=CORES:COMMAND, as taskbench's --external."""
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)=(\d+):(.+)", text)
    if not m or int(m.group(2)) < 1:
        sys.exit(f"--external {text}: expected NAME=CORES:COMMAND, e.g. orig=2:/path/to/main -worker 2")
    return m.group(1), int(m.group(2)), shlex.split(m.group(3))


def summary_line(stdout: str, name: str, label: str) -> float:
    """The value of a Task Bench summary line (`Total Tasks 2000`, `Elapsed Time 1e-3 seconds`)."""
    m = re.search(rf"^{label} ([0-9.eE+-]+)", stdout, re.MULTILINE)
    if not m:
        sys.exit(f"--external {name}: its output has no '{label}' line")
    return float(m.group(1))


if __name__ == "__main__":
    main()
