"""Per-task overhead of every built local system: empty kernel, stencil_1d, width = cores,
1000 steps. Overhead per task = elapsed x cores / tasks (the report's task granularity).
Systems are interleaved in each round and the best of N rounds is kept. Prints figures only.

    python3 bench/system_overhead.py [--rounds 7] [--steps 1000] [--pattern stencil_1d] [--build build]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def local_systems(bin_dir: Path) -> list[dict]:
    systems = []
    for toml in sorted(ROOT.glob("systems/*/system.toml")):
        for entry in tomllib.loads(toml.read_text()).get("system", []):
            if entry.get("launcher", "local") == "local" and (bin_dir / entry["binary"]).exists():
                systems.append(entry)
    return systems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--pattern", default="stencil_1d")
    ap.add_argument("--build", default=str(ROOT / "build"))
    args = ap.parse_args()
    bin_dir = Path(args.build) / "bin"
    cores = len(os.sched_getaffinity(0))
    systems = local_systems(bin_dir)
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        for _ in range(args.rounds):
            for s in systems:
                env = {**os.environ, **{k: str(v) for k, v in s.get("env", {}).items()}}
                cmd = [str(bin_dir / s["binary"]), "-steps", str(args.steps), "-width", str(cores),
                       "-type", args.pattern, "-kernel", "empty", "-json", str(report)]
                subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
                ns = json.loads(report.read_text())["task_granularity_seconds"] * 1e9
                best[s["name"]] = min(best.get(s["name"], ns), ns)
    print(f"{args.pattern}, empty kernel, {args.steps} steps x {cores} points, best of {args.rounds} interleaved rounds")
    for name, ns in sorted(best.items(), key=lambda kv: kv[1]):
        print(f"  {name:20s} {ns:9.1f} ns per task")


if __name__ == "__main__":
    main()
