"""The core as a foreign port loads it (issue 23): libtaskbench.so through ctypes, with the
original C API and task_graph_t's original layout declared in Python (ctypes_port.py), no
nanobind. The port walks every pattern's tasks through the dependency calls, runs them with
validation, and its report must equal the serial system's on the same flags."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from systems import BIN, BUILD, PATTERNS, serial_totals, totals

PORT = Path(__file__).with_name("ctypes_port.py")
LIBRARY = BUILD / "core" / "libtaskbench.so.0"

pytestmark = pytest.mark.skipif(not LIBRARY.exists() or not (BIN / "serial").exists(),
                                reason=f"{LIBRARY} or the serial system is not built")


def every_pattern_with_scratch() -> list[str]:
    args: list[str] = []
    for pattern in PATTERNS:
        args += ["-and"] if args else []
        args += ["-steps", "5", "-width", "5", "-type", pattern, "-radix", "3", "-fraction", "0.5",
                 "-kernel", "memory_bound", "-iter", "2", "-scratch", "4096", "-output", "24"]
    # load_imbalance, whose iterations depend on the random numbers, and the default width.
    return args + ["-and", "-steps", "4", "-type", "stencil_1d", "-kernel", "load_imbalance", "-iter", "50",
                   "-imbalance", "1"]


def port(variant: str, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PORT), str(LIBRARY), variant, *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("variant", ["scratch", "scratch_auto", "nonconst", "scratch_nonconst"])
def test_a_ctypes_port_runs_every_pattern_as_serial_does(variant):
    args = every_pattern_with_scratch()
    got = port(variant, args)
    assert got.returncode == 0, got.stderr
    assert totals(got.stdout) == serial_totals(args)
    assert totals(got.stdout)


def test_the_core_validates_a_ctypes_ports_inputs():
    got = port("corrupt", ["-steps", "4", "-width", "3", "-type", "stencil_1d"])
    assert got.returncode == 3, got.stderr
    assert "validation failed: graph 0, task (t=2, i=1)" in got.stderr
    assert "Total Tasks" not in got.stdout


def test_the_shared_library_is_versioned():
    soname = subprocess.run(["objdump", "-p", str(LIBRARY)], capture_output=True, text=True)
    if soname.returncode != 0:
        pytest.skip("objdump not available")
    assert "SONAME               libtaskbench.so.0" in soname.stdout
