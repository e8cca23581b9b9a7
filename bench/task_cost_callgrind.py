#!/usr/bin/env python3
"""Instructions per task, by function, independent of the machine's load: each system runs
under `valgrind --tool=callgrind` at two sizes (stencil_1d, empty kernel), and the difference of
the two runs' instruction counts, divided by the difference of their task counts, is what one
more task costs: start-up, registration and shutdown cancel out. Inclusive counts per function
come from callgrind_annotate, summed over threads (callgrind runs them one at a time, so a
worker's idle polling is counted too and shows up as noise in the total, not in the functions).

SYSTEM is a registry entry (its binary, args, env and threads flag), optionally with extra
environment variables. With one worker (--workers 1) no thread's spinning is counted at all.
An MPI entry (launcher = "mpirun") runs as --workers ranks: one alone (no mpirun, no messages),
more under its mpirun, each rank under callgrind, the ranks' counts summed (a waiting rank's
polling is counted then, as a waiting thread's is).

Valgrind 3.19 executes no AVX-512, which a -march=native build (the default) holds on a CPU that
has it: such a binary stops at its first one. --portable builds the systems' binaries in
build-callgrind/ with -DTASKBENCH_NATIVE=OFF (x86-64 baseline, Release, the same sources and
compiler): a binary valgrind runs, and the same instructions on every x86 CPU.

Usage: bench/task_cost_callgrind.py [--steps 200,400] [--width 2] [--workers 2]
           [--build build | --portable] [--top 25] SYSTEM[:VAR=VALUE,...] ...
e.g.   bench/task_cost_callgrind.py starpu_local starpu_eager openmp_task openmp_for:OMP_WAIT_POLICY=passive
       bench/task_cost_callgrind.py --workers 1 tbb_tasks tbb_flow tbb_flow_persistent rust_rayon
       bench/task_cost_callgrind.py --portable --workers 1 native mpi_p2p openmp_task
"""
from __future__ import annotations

import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from systems import System, registry  # noqa: E402  (the tests' reader of systems/*/system.toml)

LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:\*\s+)?(?:[^:]*:)?(\S.*?)(?:\s+\[.*\])?$")
PORTABLE = ROOT / "build-callgrind"
# The portable build's configuration: the release build's, less -march=native; no CUDA (its
# configure step looks for the toolkit, and no system measured here needs it) and no tests.
PORTABLE_OPTIONS = ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DTASKBENCH_NATIVE=OFF",
                    "-DBUILD_TESTING=OFF", "-DTASKBENCH_WITH_CUDA=OFF"]
# Open MPI refuses to run as root without these; harmless otherwise.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
MPIRUN = {"openmpi": "mpirun.openmpi", "mpich": "mpirun.mpich"}


def portable_build(targets: list[str], build: Path = PORTABLE) -> Path:
    """Configures (once) and builds the targets in a -DTASKBENCH_NATIVE=OFF build; returns it.
    A lock file keeps two callers (two test sessions in one checkout) from building at once."""
    build.mkdir(exist_ok=True)
    with open(build / ".callgrind.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        steps = [["cmake", "--build", str(build), "-j", str(os.cpu_count() or 1), "--target", *targets]]
        if not (build / "build.ninja").exists():
            steps.insert(0, ["cmake", "-S", str(ROOT), "-B", str(build), *PORTABLE_OPTIONS])
        for command in steps:
            got = subprocess.run(command, capture_output=True, text=True)
            if got.returncode != 0:
                raise RuntimeError(f"{' '.join(command)}: exit status {got.returncode}\n"
                                   f"{(got.stdout + got.stderr)[-3000:]}")
    return build


def annotate(out: Path) -> dict[str, int]:
    """Inclusive instruction count per function name of one callgrind output file."""
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


def callgrind(command: list[str], env: dict, out: Path, launcher: Sequence[str] = ()) -> dict[str, int]:
    """Inclusive instruction count per function name for one run, summed over its processes
    (one output file each: out.PID) when a launcher (mpirun -np N) starts several."""
    for old in out.parent.glob(f"{out.name}.*"):  # an earlier run's, with the same out
        old.unlink()
    got = subprocess.run([*launcher, "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", *command],
                         env=env, capture_output=True, text=True)
    if got.returncode != 0:
        why = ("valgrind does not decode one of its instructions (AVX-512 from -march=native?): "
               "measure a -DTASKBENCH_NATIVE=OFF build (--portable)"
               if "unhandled instruction bytes" in got.stderr else f"exit status {got.returncode}")
        raise RuntimeError(f"{' '.join(command)} under callgrind: {why}\n{got.stderr[-3000:]}")
    counts: dict[str, int] = {}
    for file in sorted(out.parent.glob(f"{out.name}.*")):
        for name, n in annotate(file).items():
            counts[name] = counts.get(name, 0) + n
    return counts


def per_task(system: System, build: Path, steps: tuple[int, int] = (200, 400), width: int = 2,
             workers: int = 2, extra_env: dict | None = None) -> dict[str, float]:
    """Instructions per task by function (and "(total)"): the larger run's counts minus the
    smaller's, over the difference in tasks; stencil_1d, empty kernel."""
    env = {**system.env(), **(extra_env or {})}
    binary = Path(build) / "bin" / system.entry.get("binary", system.name)
    launcher: list[str] = []
    threads = [system.entry.get("threads_flag", "-worker"), str(workers)]
    if system.entry.get("launcher") == "mpirun":
        env.update(MPI_ENV)
        threads = ["-expect-ranks", str(workers)]
        if workers > 1:
            mpirun = MPIRUN[system.entry.get("mpi", "openmpi")]
            launcher = [shutil.which(mpirun) or mpirun, "-np", str(workers), "--oversubscribe"]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in steps:
            args = ["-steps", str(n), "-width", str(width), "-type", "stencil_1d", *threads]
            runs.append(callgrind([str(binary), *system.entry.get("args", []), *args], env,
                                  Path(tmp) / f"{n}.out", launcher))
    tasks = (steps[1] - steps[0]) * width
    return {f: (runs[1].get(f, 0) - runs[0].get(f, 0)) / tasks for f in runs[1]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("systems", nargs="+")
    p.add_argument("--steps", default="200,400")
    p.add_argument("--width", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--build", default="build")
    p.add_argument("--portable", action="store_true",
                   help=f"build the systems' binaries in {PORTABLE.name}/ without -march=native and measure those")
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args()
    small, large = (int(s) for s in a.steps.split(","))
    entries = {s.name: s for s in registry()}
    specs = [spec.partition(":") for spec in a.systems]
    if missing := [name for name, _, _ in specs if name not in entries]:
        sys.exit(f"task_cost_callgrind: no registry entry {', '.join(map(repr, missing))}")
    try:
        build = Path(a.build)
        if a.portable:
            build = portable_build(sorted({entries[name].entry.get("binary", name) for name, _, _ in specs}))
        for name, _, assigns in specs:
            extra = dict(kv.split("=", 1) for kv in assigns.split(",") if kv)
            counts = per_task(entries[name], build, (small, large), a.width, a.workers, extra)
            spec = f"{name}:{assigns}" if assigns else name
            print(f"== {spec}: instructions per task ({large}-{small} steps x {a.width}, {a.workers} workers)")
            for f, n in sorted(counts.items(), key=lambda kv: -kv[1])[: a.top]:
                print(f"{n:10.0f}  {f}", flush=True)
    except RuntimeError as e:
        sys.exit(f"task_cost_callgrind: {e}")


if __name__ == "__main__":
    main()
