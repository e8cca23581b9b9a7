"""Figures of tools/ompt_breakdown/README.md: the tool's own cost (elapsed with and without it)
and the breakdown of the LLVM OpenMP systems (openmp_task_llvm, the paper's algorithm, and
openmp_task_window_llvm, its -window) beside native's, on one graph, runs interleaved, best of N.

    .venv/bin/python bench/ompt_breakdown.py [--build build] [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

GRAPH = ["-steps", "1000", "-width", "2", "-type", "stencil_1d", "-kernel", "compute_bound"]
SIZES = {"small": "64", "large": "20000"}  # -iter: about 0.2 us and 55 us per task here
OMP_ENV = {"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
# Registry name: (binary, its args, its environment); without KMP_USE_YIELD, as measured before.
LLVM = {"openmp_task_llvm": ("openmp_task_llvm", [], {"OMP_PROC_BIND": "spread"}),
        "openmp_task_window_llvm": ("openmp_task_llvm", ["-window"], OMP_ENV),
        "openmp_for_llvm": ("openmp_for_llvm", [], OMP_ENV),
        "openmp_taskloop_llvm": ("openmp_taskloop_llvm", [], OMP_ENV)}


def run(build: Path, binary: str, args: list[str], env: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        subprocess.run([str(build / "bin" / binary), "-worker", "2", *args, "-json", str(report)],
                       check=True, capture_output=True, env={**os.environ, **env})
        return json.loads(report.read_text())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", type=Path, default=Path("build"))
    parser.add_argument("--repeats", type=int, default=5)
    a = parser.parse_args()
    tool = {"OMP_TOOL_LIBRARIES": str((a.build / "lib" / "libtaskbench_ompt.so").resolve())}
    variants = {f"{s} {w}": (binary, {**env, **extra_env}, args) for s, (binary, args, env) in LLVM.items()
                for w, extra_env in (("plain", {}), ("tool", tool))}
    variants["native"] = ("native", {}, ["-breakdown"])
    variants["native_dynamic"] = ("native_dynamic", {}, ["-breakdown"])
    for size, iters in SIZES.items():
        best: dict[str, dict] = {}
        for _ in range(a.repeats):  # interleaved: every variant once per round
            for name, (binary, env, extra) in variants.items():
                r = run(a.build, binary, [*GRAPH, "-iter", iters, *extra], env)
                if name not in best or r["elapsed_seconds"] < best[name]["elapsed_seconds"]:
                    best[name] = r
        print(f"== {size} tasks (-iter {iters}), best of {a.repeats}")
        for s in LLVM:
            plain, with_tool = best[f"{s} plain"]["elapsed_seconds"], best[f"{s} tool"]["elapsed_seconds"]
            print(f"{s:24} elapsed {plain * 1e3:8.3f} ms, with the tool {with_tool * 1e3:8.3f} ms "
                  f"({with_tool / plain - 1:+.1%})")
        for name in (*(f"{s} tool" for s in LLVM), "native", "native_dynamic"):
            b = best[name]["system_report"]["breakdown"]["ns_per_task"]
            print(f"{name.removesuffix(' tool'):24} ns/task work {b['work']:9.1f} overhead {b['overhead']:7.1f}"
                  f" idle {b['idle']:8.1f} discovery {b['discovery']:7.1f}")


if __name__ == "__main__":
    main()
