"""Launchers build the right command lines (no MPI needed to check them), and find the helper
programs of the build (cluster starters, the hosts' agent) in its libexec/taskbench, never in
bin/, which holds the systems alone."""

import subprocess
from pathlib import Path

import pytest

from taskbench.errors import UserError
from taskbench.launch import LaunchOptions, command, why_not_here
from taskbench.launch.mpi_common import EXPECT_RANKS_FLAG
from taskbench.registry import System


def system(**kw):
    base = dict(name="x", binary="x", folder=Path("."), binary_path=Path("/bin/x"))
    base.update(kw)
    return System(**base)


def test_local_uses_registry_env_and_threads_flag():
    s = system(cores="all", threads_flag="-worker", env={"OMP_PLACES": "cores"})
    p = command(s, ["-steps", "4"], LaunchOptions(threads_per_rank=3))
    assert p.argv == ["/bin/x", "-steps", "4", "-worker", "3"]
    assert p.env["OMP_PLACES"] == "cores" and p.set_env["OMP_NUM_THREADS"] == "3"


def test_registry_args_come_before_the_runs_flags():
    s = system(args=["-home", "0"], threads_flag="-worker")
    p = command(s, ["-steps", "4"], LaunchOptions(threads_per_rank=2))
    assert p.argv == ["/bin/x", "-home", "0", "-steps", "4", "-worker", "2"]
    m = system(launcher="mpirun", ranks=2, args=["-variant"])
    assert command(m, ["-steps", "4"], LaunchOptions()).argv[-6:] == [
        "/bin/x", "-variant", "-steps", "4", EXPECT_RANKS_FLAG, "2"]


def test_local_rejects_ranks_and_fixed_thread_counts():
    with pytest.raises(UserError, match="--ranks does not apply"):
        command(system(), [], LaunchOptions(ranks=4))
    with pytest.raises(UserError, match="fixed thread count"):
        command(system(cores=1), [], LaunchOptions(threads_per_rank=2))


def test_dask_starts_a_cluster_of_workers_around_the_system(monkeypatch):
    """--workers N worker processes (default: the cores), --threads-per-rank threads each
    (default 1), through the cluster starter among the helpers of the system's build."""
    s = system(launcher="dask", threads_flag="-threads", args=["-v"])
    p = command(s, ["-steps", "4"], LaunchOptions(ranks=3, threads_per_rank=2))
    assert p.argv == ["/libexec/taskbench/dask_cluster", "-workers", "3", "-threads", "2", "--", "/bin/x", "-v",
                      "-steps", "4"]
    assert (p.ranks, p.threads_per_rank) == (3, 2)
    monkeypatch.setattr("taskbench.launch.cluster_launcher.available_cores", lambda: 5)
    assert command(s, [], LaunchOptions()).argv[:5] == ["/libexec/taskbench/dask_cluster", "-workers", "5", "-threads",
                                                     "1"]


def test_spark_starts_a_standalone_cluster_of_n_cores_around_the_system(monkeypatch):
    s = system(launcher="spark", args=["-v"])
    p = command(s, ["-steps", "4"], LaunchOptions(ranks=3))
    assert p.argv == ["/libexec/taskbench/spark_cluster", "-workers", "3", "--", "/bin/x", "-v", "-steps", "4"]
    assert (p.ranks, p.threads_per_rank) == (1, 3)
    monkeypatch.setattr("taskbench.launch.cluster_launcher.available_cores", lambda: 5)
    assert command(s, [], LaunchOptions()).argv[:3] == ["/libexec/taskbench/spark_cluster", "-workers", "5"]


@pytest.mark.parametrize("launcher,starter", [("dask", "dask_cluster"), ("spark", "spark_cluster")])
def test_a_cluster_launcher_needs_its_starter_among_the_builds_helpers(tmp_path, launcher, starter):
    s = system(launcher=launcher, binary_path=tmp_path / "bin" / "x")
    helper = tmp_path / "libexec" / "taskbench" / starter
    assert why_not_here(s) == f"{helper} missing (the build writes it with the Python systems): run the build"
    helper.parent.mkdir(parents=True)
    helper.write_text("#!/bin/sh\n")
    assert why_not_here(s) == ""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / starter).write_text("#!/bin/sh\n")  # an older build's, beside the systems: not it
    helper.unlink()
    assert why_not_here(s) != ""


def test_the_builds_bin_holds_its_systems_and_libexec_its_helpers():
    """`ls build/bin` shows the systems and nothing else; the helpers the harness starts are in
    build/libexec/taskbench, each answering a flag it does not take with one usage line and
    status 2 (as a system answers one)."""
    from taskbench.launch.mpirun import HYDRA_AGENT
    from taskbench.launch.common import HELPER_DIR
    from taskbench.clusters.starter import STARTERS
    from taskbench.registry import Registry
    from taskbench.registry.locations import find_layout
    layout = find_layout()
    if layout.bin_dir is None or layout.bin_dir.name != "bin" or not layout.build_info:
        pytest.skip("no build (scripts/build.sh build)")
    registry = Registry(layout)
    executables = {s.binary for s in registry.systems.values()}
    assert sorted(p.name for p in layout.bin_dir.iterdir() if p.name not in executables) == []
    if not layout.build_info["components"].get("PYTHON", {}).get("enabled"):
        return  # no Python binding: no helpers
    helpers = layout.bin_dir.parent / HELPER_DIR
    # With SMPI, the smpirun of the SimGrid the build compiled against (a link; SimGrid's own flags).
    smpirun = ["smpirun"] if layout.build_info["components"].get("SMPI", {}).get("enabled") else []
    assert sorted(p.name for p in helpers.iterdir()) == sorted([*STARTERS, HYDRA_AGENT, *smpirun])
    for name in (*STARTERS, HYDRA_AGENT):
        got = subprocess.run([str(helpers / name), "--bogus"], capture_output=True, text=True, timeout=60)
        lines = got.stderr.splitlines()
        assert got.returncode == 2 and lines and lines[0].startswith("usage: " if name in STARTERS else
                                                                     "host_agent: usage: "), (name, got.stderr)
        if name == HYDRA_AGENT:
            assert len(lines) == 1, got.stderr


def test_loopback_runs_the_local_command_in_a_namespace_of_its_own(monkeypatch):
    monkeypatch.setattr("taskbench.launch.loopback.shutil.which", lambda name: f"/usr/bin/{name}")
    p = command(system(launcher="loopback", threads_flag="-worker"), ["-steps", "4"], LaunchOptions(threads_per_rank=2))
    assert p.argv == ["/usr/bin/unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                      "/bin/x", "-steps", "4", "-worker", "2"]


@pytest.fixture(autouse=True)
def plain_launcher_names(monkeypatch):
    # The real lookup prefers mpirun.openmpi / mpiexec.mpich; here the names are fixed.
    monkeypatch.setattr("taskbench.launch.mpirun.find_launcher",
                        lambda s: "mpiexec" if s.mpi == "mpich" else "mpirun")
    # As root the launch runs in a loopback-only namespace (unshare ... mpirun): the commands
    # below are the launcher's own; test_listening_sockets.py checks the namespace.
    monkeypatch.setattr("taskbench.launch.loopback.can_isolate", lambda: False)


def test_launcher_lookup_prefers_the_flavours_own_names(monkeypatch):
    from taskbench.launch import mpi_common
    found = {"mpirun": "/usr/bin/mpirun", "mpirun.openmpi": "/usr/bin/mpirun.openmpi",
             "mpiexec": "/usr/bin/mpiexec", "mpiexec.hydra": "/usr/bin/mpiexec.hydra"}
    monkeypatch.setattr(mpi_common.shutil, "which", lambda name: found.get(name))
    assert mpi_common.find_launcher(system(launcher="mpirun")) == "/usr/bin/mpirun.openmpi"
    assert mpi_common.find_launcher(system(launcher="mpirun", mpi="mpich")) == "/usr/bin/mpiexec.hydra"
    monkeypatch.setattr(mpi_common.shutil, "which", lambda name: None)
    assert mpi_common.find_launcher(system(launcher="mpirun", mpi="mpich")) is None


def test_openmpi_mpirun(monkeypatch):
    monkeypatch.setattr("taskbench.launch.mpirun.running_as_root", lambda: True)
    s = system(launcher="mpirun", ranks=2, env={"OMP_PLACES": "cores"}, threads_flag="-worker")
    p = command(s, ["-steps", "4"], LaunchOptions(ranks=4, threads_per_rank=2))
    assert p.argv[:6] == ["mpirun", "-np", "4", "--oversubscribe", "--map-by", "slot:PE=2"]
    assert "-x" in p.argv and "OMP_PLACES" in p.argv
    assert p.argv[-7:] == ["/bin/x", "-steps", "4", "-worker", "2", EXPECT_RANKS_FLAG, "4"]
    assert p.set_env["OMPI_ALLOW_RUN_AS_ROOT"] == "1" and p.set_env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    assert p.ranks == 4


def test_openmpi_without_root_sets_no_root_variables(monkeypatch):
    monkeypatch.setattr("taskbench.launch.mpirun.running_as_root", lambda: False)
    p = command(system(launcher="mpirun", ranks=3), [], LaunchOptions())
    assert "OMPI_ALLOW_RUN_AS_ROOT" not in p.set_env
    assert p.argv[:3] == ["mpirun", "-np", "3"] and p.argv[-2:] == [EXPECT_RANKS_FLAG, "3"]


def test_mpich_mpiexec(monkeypatch):
    monkeypatch.setattr("taskbench.launch.mpirun.available_cores", lambda: 2)
    monkeypatch.setattr("taskbench.launch.mpirun.allowed_cpus", lambda: [0, 1])
    p = command(system(launcher="mpirun", mpi="mpich", env={"A": "1"}), [], LaunchOptions(ranks=2))
    assert p.argv[:5] == ["mpiexec", "-n", "2", "-bind-to", "user:0,1"]  # a rank per core, as the paper's
    assert p.argv[5:8] == ["-genv", "A", "1"]
    assert p.argv[8] == "-print-all-exitcodes"  # which rank died (launch/diagnosis.py)
    assert "--oversubscribe" not in p.argv


CPUS = list(range(4, 20))  # a run confined to 16 CPUs that are not the machine's first


@pytest.mark.parametrize("mpi,bind", [
    ("openmpi", ["--cpu-list", ",".join(map(str, CPUS)), "--bind-to", "cpu-list:ordered"]),
    ("mpich", ["-bind-to", "user:" + ",".join(map(str, CPUS))])])
def test_a_rank_per_core_is_bound_to_its_cpu_as_the_papers_runs(monkeypatch, mpi, bind):
    """The paper ran its MPI ports with srun --cpu_bind cores. Open MPI binds to cores by itself
    only up to 2 ranks (to sockets beyond), and to the machine's first cores even where the
    harness may not run; MPICH's Hydra binds nothing: both are told to put rank k on the k-th CPU
    the harness may use, unless the ranks outnumber them (then no binding: an oversubscribed
    rank must be free to move)."""
    monkeypatch.setattr("taskbench.launch.mpirun.available_cores", lambda: len(CPUS))
    monkeypatch.setattr("taskbench.launch.mpirun.allowed_cpus", lambda: CPUS)
    argv = command(system(launcher="mpirun", mpi=mpi), [], LaunchOptions(ranks=16)).argv
    assert any(argv[k:k + len(bind)] == bind for k in range(len(argv)))
    argv = command(system(launcher="mpirun", mpi=mpi), [], LaunchOptions(ranks=17)).argv
    assert not any(a.lstrip("-") == "bind-to" for a in argv)


def test_mpich_binds_each_rank_to_as_many_cores_as_threads():
    p = command(system(launcher="mpirun", mpi="mpich"), [], LaunchOptions(ranks=2, threads_per_rank=3))
    assert p.argv[:5] == ["mpiexec", "-n", "2", "-bind-to", "core:3"]


@pytest.fixture
def srun_on_path(monkeypatch):
    monkeypatch.setattr("taskbench.launch.srun.shutil.which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr("taskbench.launch.slurm_mpi.plugin", lambda system, args, env: "pmix")


def test_srun_missing_is_one_clear_error(monkeypatch):
    monkeypatch.setattr("taskbench.launch.srun.shutil.which", lambda name: None)
    with pytest.raises(UserError, match="srun not found on PATH"):
        command(system(launcher="srun", ranks=2), [], LaunchOptions())


def test_launcher_option_runs_an_mpirun_system_under_srun(srun_on_path):
    p = command(system(launcher="mpirun", ranks=2), ["-steps", "4"], LaunchOptions(launcher="srun", ranks=4))
    assert p.argv[:5] == ["srun", "--mpi=pmix", "-n", "4", "--kill-on-bad-exit=1"]
    assert p.argv[-2:] == [EXPECT_RANKS_FLAG, "4"]
    # Outside an allocation, srun has no hosts to run another system's processes on.
    with pytest.raises(UserError, match="not an MPI system: it runs across a Slurm allocation's hosts"):
        command(system(), [], LaunchOptions(launcher="srun"))
    with pytest.raises(UserError, match="--launcher mpirun: only for MPI systems"):
        command(system(), [], LaunchOptions(launcher="mpirun"))


def test_srun(srun_on_path):
    p = command(system(launcher="srun", ranks=8), ["-steps", "4"], LaunchOptions(threads_per_rank=2))
    assert p.argv[:6] == ["srun", "--mpi=pmix", "-n", "8", "--kill-on-bad-exit=1", "--cpus-per-task"]
    assert p.argv[-2:] == [EXPECT_RANKS_FLAG, "8"]


@pytest.mark.parametrize("cores", [16, 12, 2, 1])
def test_mpi_defaults_follow_the_machine(monkeypatch, cores):
    """One rank per available core; a hybrid (threads flag) entry one rank with every core as its
    threads (the paper's MPI+OpenMP: a rank per node); --ranks or --threads-per-rank fix the other."""
    monkeypatch.setattr("taskbench.launch.mpi_common.available_cores", lambda: cores)
    ranks, threads = 1, cores
    flat = command(system(launcher="mpirun"), [], LaunchOptions())
    assert (flat.ranks, flat.threads_per_rank) == (cores, None)
    assert flat.argv[:3] == ["mpirun", "-np", str(cores)] and flat.argv[-1] == str(cores)
    hybrid = command(system(launcher="mpirun", threads_flag="-worker"), [], LaunchOptions())
    assert (hybrid.ranks, hybrid.threads_per_rank) == (ranks, threads)
    assert hybrid.argv[-4:] == ["-worker", str(threads), EXPECT_RANKS_FLAG, str(ranks)]
    given = command(system(launcher="mpirun", threads_flag="-worker"), [], LaunchOptions(ranks=cores))
    assert (given.ranks, given.threads_per_rank) == (cores, 1)
    given = command(system(launcher="mpirun", threads_flag="-worker"), [], LaunchOptions(threads_per_rank=cores))
    assert (given.ranks, given.threads_per_rank) == (1, cores)
    fixed = command(system(launcher="mpirun", threads_flag="-worker", threads_per_rank=1), [], LaunchOptions())
    assert (fixed.ranks, fixed.threads_per_rank) == (cores, 1)  # starpu_mpi: one worker per rank
    driver = command(system(launcher="mpirun", driver_rank=True), [], LaunchOptions())
    assert driver.ranks == cores + 1  # mpi4py_futures: rank 0 submits, a worker rank per core


def test_a_rank_or_thread_count_below_one_is_refused():
    for options, flag in ((LaunchOptions(ranks=-1), "--ranks"), (LaunchOptions(threads_per_rank=-2),
                                                                  "--threads-per-rank")):
        with pytest.raises(UserError, match=f"{flag} must be at least 1"):
            command(system(launcher="mpirun", threads_flag="-worker"), [], options)
