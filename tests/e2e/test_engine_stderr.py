"""Every system's stderr is ours: a bad flag is exactly one line, the core's, and a
run that succeeds prints nothing on stderr, whatever the engine under it would print on its own.

The runs get the engines' own defaults as a user's environment has them: none of the variables
that quiet an engine (a test environment may carry some), and TensorFlow's oneDNN rewrites on,
as they are by default on CPUs with AVX-512 (where its start-up notices were first seen). Every
registry entry is run as a user runs build/bin/NAME (MPI ones as singletons; the loopback
launcher's inside its network namespace; the cluster launchers' systems for their flags only). Large engines (Spark, TensorFlow) are covered
when installed, and must be in scripts/test.sh's last stage (TASKBENCH_REQUIRE_LARGE_ENGINES=1)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from large_engines import require as require_large
from systems import LARGE_ENGINES, ROOT, System, registry, unavailable

sys.path.insert(0, str(ROOT / "python"))
from taskbench.launch.loopback import can_isolate, wrap  # noqa: E402

QUIETING = ("TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "STARPU_SILENT",
            "RAY_BACKEND_LOG_LEVEL", "RAY_LOG_LEVEL", "SPARK_CONF_DIR", "PYTHONWARNINGS")
ENGINE_DEFAULTS = {"TF_ENABLE_ONEDNN_OPTS": "1"}
BAD_FLAGS = {"unknown_flag": ["-no-such-flag"], "invalid_value": ["-steps", "0"]}
SMALL_RUN = ["-steps", "3", "-width", "2", "-type", "stencil_1d"]
# Launchers of systems that run only inside a cluster the launcher starts (the `spark` launcher
# of pyspark_standalone): flags only.
CLUSTER_ONLY = ("spark",)
SYSTEMS = registry()
LARGE_MODULES = {"pyspark": "pyspark", "tensorflow": "tensorflow", "legate": "legate"}


def user_env(system: System) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in QUIETING and k != "TASKBENCH_FAULT"}
    env.update(ENGINE_DEFAULTS)
    # Open MPI refuses to run as root without these; they change nothing it prints.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # The registry's own settings are part of the system.
    env.update({k: str(v) for k, v in system.entry.get("env", {}).items()})
    return env


def require(system: System) -> None:
    if system.binary.name in LARGE_ENGINES:
        require_large(system.binary.name, LARGE_MODULES[system.binary.name])
    if reason := unavailable(system):
        pytest.skip(reason)
    if system.entry.get("launcher") == "smpirun":  # smpirun prints a line of its own on stdout
        pytest.skip(f"{system.name} runs only under smpirun on a simulated platform: tests/e2e/test_smpi.py "
                    "checks its stderr there")


def launch(system: System, args: list[str], tmp_path) -> subprocess.CompletedProcess:
    argv = system.command(args)
    if system.entry.get("launcher") in ("loopback", "ray", "charmrun"):  # where the harness runs it on one machine
        if not can_isolate():
            pytest.skip("the loopback launcher's network namespace needs unshare and ip, as root")
        argv = wrap(argv)
    return subprocess.run(argv, capture_output=True, text=True, env=user_env(system), cwd=tmp_path, timeout=300)


@pytest.mark.parametrize("case", BAD_FLAGS)
@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_bad_flag_is_one_line(system, case, tmp_path):
    require(system)
    got = launch(system, BAD_FLAGS[case], tmp_path)
    assert got.returncode == 2, got.stderr
    assert got.stdout == ""
    assert len(got.stderr.splitlines()) == 1 and got.stderr.startswith("taskbench: "), got.stderr


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s.entry.get("launcher", "local") not in CLUSTER_ONLY],
                         ids=lambda s: s.name)
def test_a_run_prints_nothing_on_stderr(system, tmp_path):
    require(system)
    got = launch(system, SMALL_RUN, tmp_path)
    assert got.returncode == 0, got.stderr
    assert "Total Tasks 6" in got.stdout
    assert got.stderr == ""
