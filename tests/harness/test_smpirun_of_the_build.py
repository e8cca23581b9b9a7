"""A simulated build runs under the smpirun of the SimGrid it was compiled against, which CMake
links as the build's libexec/taskbench/smpirun (systems/common/mpi/flavors.cmake), never under
another smpirun found on PATH: a program built against SimGrid 4.1 does not load into 3.32's
libsimgrid (docs/simulation.md, "Another SimGrid")."""

from pathlib import Path
from types import SimpleNamespace

from taskbench.hosts.simulated import Simulation, find
from taskbench.launch import smpirun
from taskbench.launch.common import LaunchOptions


def system_in(build: Path):
    (build / "bin").mkdir(parents=True, exist_ok=True)
    binary = build / "bin" / "mpi_p2p_smpi"
    binary.write_text("")
    return SimpleNamespace(name="mpi_p2p_smpi", binary_path=binary, args=[], env={}, launcher="smpirun")


def link(build: Path, target: Path) -> Path:
    helpers = build / "libexec" / "taskbench"
    helpers.mkdir(parents=True, exist_ok=True)
    (helpers / "smpirun").symlink_to(target)
    return helpers / "smpirun"


def test_the_run_starts_the_builds_smpirun(tmp_path):
    other = tmp_path / "opt" / "simgrid-4.1" / "bin" / "smpirun"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    system = system_in(tmp_path / "build")
    recorded = link(tmp_path / "build", other)
    assert smpirun.why_not_here(system) == ""
    options = LaunchOptions(simulation=Simulation(find("small"), 1), run_dir=tmp_path)
    plan = smpirun.command(system, ["-steps", "3"], options)
    assert plan.argv[0] == str(recorded) and Path(plan.argv[0]).resolve() == other


def test_a_build_that_records_no_smpirun_says_to_reconfigure(tmp_path):
    said = smpirun.why_not_here(system_in(tmp_path / "build"))
    assert "this build records no smpirun" in said and "re-run CMake" in said


def test_a_removed_simgrid_is_named(tmp_path):
    system = system_in(tmp_path / "build")
    link(tmp_path / "build", tmp_path / "opt" / "simgrid-9.9" / "bin" / "smpirun")
    said = smpirun.why_not_here(system)
    assert "the SimGrid this build was compiled against is gone" in said and "simgrid-9.9" in said
