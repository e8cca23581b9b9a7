#!/usr/bin/env python3
"""Per empty task, openmp_task_window (libgomp) beside openmp_task_window_llvm (libomp) under
libomp settings.

Each variant is openmp_task_window_llvm with its registry environment plus one setting; the
rounds interleave every variant and openmp_task_window, and the best of N rounds is kept:
elapsed × threads / tasks of stencil_1d (default 1000 × 2 on 2 threads, empty kernel), and each
figure's ratio to openmp_task_window's in the same rounds. With --pattern, --radix, --kernel and
--iter another graph (e.g. nearest radix 3 on 3 points with compute_bound tasks of a few us:
where METG is decided). --all-at-once runs the binaries' default instead, the Task Bench paper's
algorithm (openmp_task, openmp_task_llvm), under the same environments. Prints figures only
(issue 50, item 3; docs/task-runtimes.md).

  bench/libomp_settings.py [--rounds 11] [--steps 1000] [--width 2] [--threads 2] [--build build]
                           [--pattern stencil_1d] [--radix 3] [--kernel empty] [--iter 0]
                           [--all-at-once]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One setting each, on top of the entry's environment: openmp_task_window_llvm's
# OMP_PLACES=cores OMP_PROC_BIND=close KMP_USE_YIELD=2, or with --all-at-once openmp_task_llvm's
# OMP_PROC_BIND=spread (the paper's launch).
VARIANTS = {
    "registry": {},
    "KMP_USE_YIELD=1 (libomp's default)": {"KMP_USE_YIELD": "1"},
    "KMP_BLOCKTIME=infinite": {"KMP_BLOCKTIME": "infinite"},
    "KMP_BLOCKTIME=0": {"KMP_BLOCKTIME": "0"},
    "KMP_LIBRARY=turnaround": {"KMP_LIBRARY": "turnaround"},
    "KMP_ENABLE_TASK_THROTTLING=0": {"KMP_ENABLE_TASK_THROTTLING": "0"},
    "KMP_TASK_STEALING_CONSTRAINT=0": {"KMP_TASK_STEALING_CONSTRAINT": "0"},
    "OMP_WAIT_POLICY=active": {"OMP_WAIT_POLICY": "active"},
    "LIBOMP_USE_HIDDEN_HELPER_TASK=0": {"LIBOMP_USE_HIDDEN_HELPER_TASK": "0"},
}
BASE = {"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
LLVM_BASE = dict(BASE, KMP_USE_YIELD="2")
PAPER_BASE = {"OMP_PROC_BIND": "spread"}
ELAPSED = re.compile(r"^Elapsed Time ([0-9.eE+-]+) seconds", re.M)


def per_task(binary: Path, env: dict, args) -> float:
    flags = [*([] if args.all_at_once else ["-window"]), "-steps", str(args.steps), "-width", str(args.width), "-type", args.pattern, "-radix", str(args.radix),
             "-kernel", args.kernel, "-iter", str(args.iter), "-worker", str(args.threads)]
    out = subprocess.run([str(binary), *flags], env=dict(os.environ, **env), capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return float(ELAPSED.search(out).group(1)) * args.threads / (args.steps * args.width)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--width", type=int, default=2, help="points per row (2)")
    p.add_argument("--threads", type=int, default=2, help="worker threads (2)")
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--pattern", default="stencil_1d")
    p.add_argument("--radix", type=int, default=3, help="for the patterns that take one (3)")
    p.add_argument("--kernel", default="empty")
    p.add_argument("--iter", type=int, default=0, help="the kernel's iterations (0)")
    p.add_argument("--all-at-once", action="store_true", help="the paper's algorithm, not -window")
    args = p.parse_args()
    gomp, llvm = Path(args.build, "bin", "openmp_task"), Path(args.build, "bin", "openmp_task_llvm")
    for binary in (gomp, llvm):
        if not binary.is_file():
            sys.exit(f"{binary} is not built")
    system = "openmp_task" if args.all_at_once else "openmp_task_window"
    base_env, llvm_env = (PAPER_BASE, PAPER_BASE) if args.all_at_once else (BASE, LLVM_BASE)
    runs = {f"{system} (libgomp)": (gomp, base_env)}
    runs.update({f"{system}_llvm, {v}": (llvm, dict(llvm_env, **env)) for v, env in VARIANTS.items()})
    best = {name: float("inf") for name in runs}
    for _ in range(args.rounds):
        for name, (binary, env) in runs.items():
            best[name] = min(best[name], per_task(binary, env, args))
    base = best[f"{system} (libgomp)"]
    print(f"{args.pattern} {args.steps} x {args.width}, {args.kernel} kernel (-iter {args.iter}), {args.threads} "
          f"threads, best of {args.rounds} interleaved rounds: thread time per task")
    for name, value in best.items():
        print(f"{value * 1e9:9.0f} ns  {value / base:5.2f}x libgomp  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
