#!/usr/bin/env python3
"""The simulated METG of mpi_p2p on Cori against the level of one platform switch
(bench/platform_switches.py, docs/simulation.md "Sensitivities"), beside the published figure:
a figure per (switch level, node count), never a pass/fail check, and never a level chosen to hit
the published figure.

  bench/simulation_sensitivity.py noise 1000:25e-6 10000:25e-6 --nodes 64,128
  bench/simulation_sensitivity.py injection 16e9 --nodes 64,128
  bench/simulation_sensitivity.py noise 37408:4.6e-6 --pattern nearest --radix 5 --nodes 2,4,8,64

Levels: noise RATE:SECONDS (detours per second on a node, seconds each); injection BYTES_PER_S
(a node's NIC). Each level is a campaign of `taskbench metg --simulate` on a switched copy of
cori.xml written to --folder (kept: the campaigns store its path and hash); a level already run
in --db is replayed, not run again. Prints a Markdown table with the wall time of each level."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from platform_switches import write_switched  # noqa: E402  (beside this script)

SOURCES = {"noise": "per-node OS noise, a Poisson process of detours per node (simulated_noise.h)",
           "injection": "a node's NIC injection bandwidth (SimGrid limiter link)"}


def switches(kind: str, level: str) -> tuple[str, dict]:
    if kind == "noise":
        rate, seconds = (float(x) for x in level.split(":"))
        return f"noise-{rate:g}hz-{seconds * 1e6:g}us", {"noise": (rate, seconds)}
    return f"injection-{float(level) / 1e9:g}GBps", {"injection_bps": float(level)}


def metg_rows(stdout: str) -> dict[int, tuple[float, str]]:
    """{nodes: (simulated METG seconds, published)} from `taskbench -q metg --simulate`'s table."""
    rows, header = {}, None
    for line in stdout.splitlines():
        cells = line.split("\t")
        if cells[:3] == ["nodes", "system", "simulated METG"]:
            header = cells
            continue
        if header and len(cells) == len(header) and cells[0].isdigit():
            rows[int(cells[0])] = (float(cells[2]), cells[header.index("published (Cori, SC20)")]
                                   if "published (Cori, SC20)" in header else "")
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("switch", choices=sorted(SOURCES))
    p.add_argument("levels", nargs="+")
    p.add_argument("--nodes", default="64,128")
    p.add_argument("--steps", default="100")
    p.add_argument("--pattern", default="stencil_1d", help="the graph's pattern (taskbench metg --pattern)")
    p.add_argument("--radix", help="its dependencies per task (taskbench metg --radix)")
    p.add_argument("--folder", type=Path, default=Path("sensitivity"), help="where the switched platforms go")
    p.add_argument("--db", help="the store (taskbench --db); default the harness's")
    args = p.parse_args()
    lines = [f"| {args.switch} level | nodes | simulated METG | published | simulated / published | wall time |",
             "|---|---|---|---|---|---|"]
    graph = ["--pattern", args.pattern, *(["--radix", args.radix] if args.radix else [])]
    # one campaign name per level and graph: a store can hold the stencil's and nearest's levels
    graph_name = "" if args.pattern == "stencil_1d" else f"-{args.pattern}{args.radix or ''}"
    for level in args.levels:
        name, switched = switches(args.switch, level)
        platform = write_switched("cori", args.folder, f"cori+{name}", source=f"{SOURCES[args.switch]}: {level}",
                                  **switched)
        command = [sys.executable, "-m", "taskbench", *(["--db", args.db] if args.db else []), "-q", "metg", "mpi_p2p",
                   "--simulate", str(platform.path), "--nodes", args.nodes, "--steps", args.steps, *graph,
                   "--timeout", "1800", "--reference", "sc20", "--campaign", f"sens-{name}{graph_name}"]
        started = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
        wall = time.perf_counter() - started
        if out.returncode != 0:
            print(out.stdout + out.stderr, file=sys.stderr)
            return out.returncode
        for nodes, (metg, published) in sorted(metg_rows(out.stdout).items()):
            try:
                paper = float(published)
                beside = f"{paper * 1e6:.3g} µs | {metg / paper:.2f}x"
            except ValueError:
                beside = f"{published} | "
            lines.append(f"| {level} | {nodes} | {metg * 1e6:.3g} µs | {beside} | {wall:.0f} s (whole level) |")
            print(lines[-1], flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
