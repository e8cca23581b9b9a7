"""The threaded-BLAS warning: said once, by a run whose tasks call dgemm, and by no
other run, so a bad flag's message stays the only line on stderr.

A threaded OpenBLAS is one whose openblas_get_parallel() returns non-zero. The core looks that
function up weakly, so a preloaded one-line library stands in for the threaded build's answer
(the machines CI runs on have the serial build); every dgemm still runs the real OpenBLAS."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from systems import BIN, BUILD

WARNING = "taskbench: warning: the OpenBLAS loaded is threaded"
DGEMM = ["-steps", "3", "-width", "2", "-type", "stencil_1d", "-kernel", "compute_dgemm",
         "-scratch", "24000", "-iter", "1"]


@pytest.fixture(scope="module")
def threaded_env(tmp_path_factory):
    if not (BIN / "serial").exists():
        pytest.skip(f"serial is not built in {BUILD}")
    plain = run("serial", DGEMM, dict(os.environ))
    if plain.returncode != 0:
        pytest.skip(f"this build runs no compute_dgemm: {plain.stderr.strip()}")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in")
    work = tmp_path_factory.mktemp("threaded_blas")
    (work / "parallel.c").write_text("int openblas_get_parallel(void) { return 1; }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(work / "libparallel.so"), str(work / "parallel.c")],
                   check=True)
    env = dict(os.environ)
    # A sanitizer runtime must come first in the preload list.
    env["LD_PRELOAD"] = " ".join(filter(None, [env.get("LD_PRELOAD", ""), str(work / "libparallel.so")]))
    return env


def run(name: str, args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / name), *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("name,extra", [("serial", []), ("native", ["-worker", "2"])])
def test_dgemm_run_warns_once(threaded_env, name, extra):
    got = run(name, [*DGEMM, "-and", *DGEMM, *extra], threaded_env)
    assert got.returncode == 0, got.stderr
    assert got.stderr.count(WARNING) == 1, got.stderr
    assert got.stderr.splitlines() == [line for line in got.stderr.splitlines() if line.startswith(WARNING)]


def test_other_kernels_do_not_warn(threaded_env):
    got = run("serial", ["-kernel", "compute_bound", "-iter", "10", "-steps", "3"], threaded_env)
    assert got.returncode == 0 and got.stderr == ""


@pytest.mark.parametrize("bad", [["-width", "-1"], ["-worker", "0"]])
def test_bad_flag_is_the_only_line(threaded_env, bad):
    got = run("native", [*DGEMM, *bad], threaded_env)
    assert got.returncode == 2
    assert len(got.stderr.splitlines()) == 1 and WARNING not in got.stderr, got.stderr
