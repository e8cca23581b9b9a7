"""Finds the built systems from the registry (systems/*/system.toml) and runs them."""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TASKBENCH_BUILD_DIR", ROOT / "build"))
BIN = BUILD / "bin"
LIBEXEC = BUILD / "libexec" / "taskbench"  # the launchers' helpers (cluster starters)

PATTERNS = ["trivial", "no_comm", "stencil_1d", "stencil_1d_periodic", "dom", "tree", "fft",
            "all_to_all", "nearest", "spread", "random_nearest", "random_spread"]
# Tests of engines that start processes (Dask clusters, Ray instances) put this variable in the
# environment of what they start (the `probe` fixture, conftest.py): whatever still carries it
# afterwards was left behind.
PROBE = "TASKBENCH_TEST_PROCESS_PROBE"
TOTAL_LINES = ("Total Tasks", "Total Dependencies", "Local Dependencies", "Nonlocal Dependencies",
               "Total FLOPs", "Total Bytes")


@dataclass
class System:
    name: str
    entry: dict

    @property
    def binary(self) -> Path:
        return BIN / self.entry.get("binary", self.name)

    def command(self, args: list[str]) -> list[str]:
        return [str(self.binary), *self.entry.get("args", []), *args]

    def env(self) -> dict:
        return {**os.environ, **{k: str(v) for k, v in self.entry.get("env", {}).items()}}


def registry() -> list[System]:
    systems = []
    for toml in sorted(ROOT.glob("systems/*/system.toml")):
        for entry in tomllib.loads(toml.read_text()).get("system", []):
            systems.append(System(entry["name"], entry))
    return systems


# Launchers whose systems also run alone as one local command: a Dask cluster system then
# starts its own cluster on 127.0.0.1 (the harness's `dask` launcher starts one for it).
STANDALONE_LAUNCHERS = ("local", "dask", "parsl_pools")


def local_systems() -> list[System]:
    """Systems run as one local command (MPI systems have their own tests), but for those whose
    every run starts an engine for seconds (SLOW_TO_START): their own files test every pattern
    in one run; and GPU systems, which run the GPU kernels only (test_gpu_systems.py)."""
    return [s for s in registry() if s.entry.get("launcher", "local") in STANDALONE_LAUNCHERS
            and s.name not in SLOW_TO_START and s.entry.get("processor", "cpu") != "gpu"]


def built_systems() -> list[str]:
    manifest = BUILD / "taskbench-build.json"
    return json.loads(manifest.read_text())["systems"] if manifest.exists() else []


def missing_modules(system: System) -> list[str]:
    """The registry's `requires` modules that this interpreter (the launchers' own) lacks."""
    return [m for m in system.entry.get("requires", []) if importlib.util.find_spec(m) is None]


def unavailable(system: System) -> str | None:
    """Why this entry cannot run in this build on this machine, or None: a test skips with it.
    Wherever the project installs, some engines may be absent (the GPU machine has no Dask,
    Ray or charm4py): their tests skip rather than fail on the missing engine's status 4."""
    if reason := sanitizer_skip(system):
        return reason
    if system.binary.name not in built_systems() or not system.binary.exists():
        return f"{system.name} is not built in {BUILD} (see `taskbench systems` for why)"
    if missing := missing_modules(system):
        return f"{system.name} needs the Python module(s) {', '.join(missing)} (scripts/install-deps.sh)"
    if system.entry.get("processor") == "gpu" and (problem := gpu_problem(str(system.binary))):
        return f"{system.name}: {problem}"
    return None


@functools.cache
def gpu_problem(binary: str) -> str | None:
    """Why a GPU system's binary cannot run here (its own one line, e.g. no usable CUDA device),
    or None: it runs one task."""
    got = subprocess.run([binary, "-steps", "1", "-width", "1"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    return None if got.returncode == 0 else (got.stderr.strip() or f"exit status {got.returncode}")


def sanitizer_skip(system: System) -> str | None:
    """Why a sanitizer build leaves this entry out, or None. An entry with
    `sanitizer_tests = false` only changes an uninstrumented library's setting (e.g. a scheduler)
    for a binary another entry already runs: every instrumented line is covered there."""
    manifest = BUILD / "taskbench-build.json"
    sanitize = json.loads(manifest.read_text()).get("sanitize") if manifest.exists() else ""
    if sanitize and system.entry.get("sanitizer_tests", True) is False:
        return f"{system.name}: sanitizer_tests = false (its binary is tested under another entry)"
    return None


def run(system: System, args: list[str], extra_env: dict | None = None, timeout: float = 120):
    env = system.env()
    env.update(extra_env or {})
    return subprocess.run(system.command(args), capture_output=True, text=True, env=env, timeout=timeout)


def totals(stdout: str) -> list[str]:
    """The summary lines that must be identical across systems (everything but timings)."""
    return [line.strip() for line in stdout.splitlines() if line.strip().startswith(TOTAL_LINES)]


# Engines whose wheels are large (installed by scripts/install-large-engines.sh, in the last
# stage of scripts/test.sh only) and whose every run starts a JVM or imports TensorFlow for
# seconds: the shared matrix leaves them out; their own test files cover every pattern in
# one run. Under TASKBENCH_REQUIRE_LARGE_ENGINES=1 (that stage) a missing one fails its
# tests instead of skipping them.
LARGE_ENGINES = ("pyspark", "tensorflow", "legate")  # legate: Legion's runtime starts for about 1 s
# dask_distributed starts a scheduler and worker processes for each run (about 3 s): the shared
# matrix's 57 runs took 3 minutes of the test suite; test_dask_distributed.py covers the same.
# parsl and parsl_threads import Parsl (about 2 s) and start its executor for each run: 7 and
# 3 minutes of the shared matrix; test_parsl.py covers the same cases in a few runs.
SLOW_TO_START = (*LARGE_ENGINES, "dask_distributed", "parsl", "parsl_threads")


def graph(pattern: str, steps: int = 9, width: int = 7, extra: tuple = ()) -> list[str]:
    """One graph's flags, with the pattern's parameters set so that each pattern is exercised."""
    return ["-steps", str(steps), "-width", str(width), "-type", pattern, "-radix", "3", "-period", "2",
            "-fraction", "0.5", *extra]


def serial_totals(args: list[str]) -> list[str]:
    """serial's summary lines for args: what every system's must equal."""
    got = subprocess.run([str(BIN / "serial"), *args], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    return totals(got.stdout)


def every_pattern(steps: int = 6, width: int = 4) -> list[str]:
    """Every pattern as one graph each, side by side in one run (-and): engines that take
    seconds to start are tested in one run rather than one per pattern."""
    args = []
    for pattern in PATTERNS:
        args += ["-and"] if args else []
        args += ["-steps", str(steps), "-width", str(width), "-type", pattern, "-radix", "3",
                 "-fraction", "0.5", "-kernel", "compute_bound", "-iter", "20"]
    return args


# For engines tested in few runs (SLOW_TO_START, loopback launchers): the other kernels, scratch
# and 1 MiB outputs as graphs side by side in one run, ...
OTHER_KERNELS = ["-steps", "3", "-width", "3", "-type", "stencil_1d", "-output", "1048576", "-and",
                 "-steps", "4", "-width", "3", "-type", "tree", "-kernel", "memory_daxpy", "-scratch", "8192",
                 "-iter", "4", "-and", "-steps", "4", "-width", "3", "-type", "fft", "-kernel", "compute_dgemm",
                 "-scratch", "24000", "-iter", "2", "-and", "-steps", "3", "-width", "2", "-type", "nearest",
                 "-radix", "2", "-kernel", "io_bound", "-iter", "2", "-and", "-steps", "3", "-width", "4",
                 "-type", "spread", "-kernel", "compute_bound2", "-iter", "9"]
# ... and a fault in task (2, 1) of the second graph, whose consumers in row 3 must reject it.
CORRUPTED = {"TASKBENCH_FAULT": "corrupt:1,2,1"}
FAULT_GRAPHS = ["-steps", "5", "-width", "3", "-type", "no_comm", "-and", "-steps", "6", "-width", "4",
                "-type", "all_to_all"]


def assert_validation_failed(got) -> None:
    """The run ended with status 3 and the core's line for the corrupted task, and no summary."""
    assert got.returncode == 3, got.stderr
    last = [line for line in got.stderr.splitlines() if line.startswith("taskbench: ")][-1]
    assert last.startswith("taskbench: validation failed: graph 1, task (t=3, i="), last
    assert "expected the output of (t=2, i=1)" in last
    assert "Total Tasks" not in got.stdout
