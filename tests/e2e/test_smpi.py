"""End-to-end tests of the MPI systems on a simulated platform: their SimGrid SMPI builds
(mpi_p2p_smpi, mpi_bulk_smpi) under smpirun on the test platform `small` (8 nodes of 4 cores,
python/taskbench/hosts/platforms/small.xml), and the harness's --simulate (docs/simulation.md).

A simulated run must count what build/bin/serial counts with the same flags (every rank's task
and validation counts its own: the ranks share one process), give the same simulated time on
every run, and fail as any run does when the fault switch corrupts an output."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from taskbench.launch.common import HELPER_DIR  # noqa: E402
from taskbench.launch.smpirun import QUIET, smpirun_problem  # noqa: E402  (the harness's smpirun options)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("TASKBENCH_BUILD_DIR", ROOT / "build")) / "bin"
# The smpirun of the SimGrid the build compiled against (systems/common/mpi/flavors.cmake), as the
# harness runs it: never another one on PATH.
SMPIRUN = BIN.parent / HELPER_DIR / "smpirun"
SMALL = ROOT / "python" / "taskbench" / "hosts" / "platforms" / "small.xml"
CORES_PER_NODE = 4  # small.xml's
ENV = {k: v for k, v in os.environ.items() if k != "TASKBENCH_FAULT"}
TOTALS = ("Total Tasks", "Total Dependencies", "Total FLOPs", "Total Bytes")


def binary(system):
    path = BIN / system
    if not path.exists():
        pytest.skip(f"{path.name} is not built (the configure summary says why: SMPI)")
    if problem := smpirun_problem(SMPIRUN):
        pytest.skip(problem)
    return path


def simulate(system, nodes, args, tmp_path, env=ENV):
    """smpirun on the first `nodes` nodes of `small`, a rank per core; the run's JSON report."""
    ranks = nodes * CORES_PER_NODE
    hostfile = tmp_path / "hosts"
    hostfile.write_text("".join(f"node-{n}\n" * CORES_PER_NODE for n in range(nodes)))
    report = tmp_path / "report.json"
    argv = [str(SMPIRUN), *QUIET, "-platform", str(SMALL), "-hostfile", str(hostfile),
            "-np", str(ranks), str(binary(system)), *args, "-expect-ranks", str(ranks), "-nodes", str(nodes),
            "-json", str(report)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(env, TMPDIR=str(tmp_path)))
    return out, (json.loads(report.read_text()) if out.returncode == 0 else None)


def totals(stdout):
    return [line for line in stdout.splitlines() if line.startswith(TOTALS)]


def serial_totals(args):
    out = subprocess.run([str(BIN / "serial"), *args], capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 0, out.stderr
    return totals(out.stdout)


GRAPHS = {
    "stencil_1d": ["-type", "stencil_1d", "-steps", "12", "-width", "16", "-kernel", "compute_bound", "-iter", "64"],
    "nearest_two_graphs": ["-type", "nearest", "-radix", "5", "-steps", "9", "-width", "19", "-output", "100",
                           "-and", "-type", "fft", "-steps", "6", "-width", "8", "-kernel", "load_imbalance",
                           "-iter", "32", "-imbalance", "0.5"],
    # random_nearest's edges come from a cache that every rank's copy of the program shares (a
    # GNU unique symbol, keyed by the graph: shared, it must give each rank the same edges).
    "spread_and_random": ["-type", "spread", "-radix", "3", "-period", "2", "-steps", "8", "-width", "13",
                          "-and", "-type", "random_nearest", "-radix", "5", "-period", "3", "-fraction", "0.5",
                          "-steps", "7", "-width", "11"],
}


@pytest.mark.parametrize("system", ["mpi_p2p_smpi", "mpi_bulk_smpi"])
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_a_simulated_4_node_run_counts_what_serial_counts(system, graph, tmp_path):
    args = GRAPHS[graph]
    out, report = simulate(system, 4, args, tmp_path)
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    got = totals(out.stdout)
    assert len(got) == len(TOTALS) and got == serial_totals(args)
    assert report["system_report"]["mpi"] == "smpi" and report["totals"]["nodes"] == 4
    assert report["system_report"]["hosts"] == {f"node-{n}": {"ranks": 4, "tasks": report["system_report"]["hosts"][f"node-{n}"]["tasks"]}
                                                for n in range(4)}


def test_the_simulated_time_is_the_same_on_every_run_and_charges_the_kernels_flops(tmp_path):
    args = ["-type", "stencil_1d", "-steps", "20", "-width", "16", "-kernel", "compute_bound", "-iter", "1000"]
    first, a = simulate("mpi_p2p_smpi", 4, args, tmp_path)
    second, b = simulate("mpi_p2p_smpi", 4, args, tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert a["elapsed_seconds"] == b["elapsed_seconds"]  # to the last bit, not within a tolerance
    # Each task's 128 * 1000 + 64 FLOPs at small's 10 GFLOP/s a core, 20 rows of tasks one after
    # another: the kernels alone take 20 * 12.8 us; the rest is the messages' (1 us to send and 1
    # to receive each, 1 us or 0.2 us on the way) and 0.1 us a task, under 10 us a row.
    kernels = 20 * (128 * 1000 + 64) / 10e9
    assert kernels < a["elapsed_seconds"] < kernels + 20 * 10e-6
    assert a["system_report"]["simulation"] == {"core_flops": 10e9, "task_seconds": 1e-7}


def test_a_kernel_that_is_not_flops_cannot_be_simulated(tmp_path):
    out, _ = simulate("mpi_p2p_smpi", 1, ["-kernel", "busy_wait", "-iter", "10"], tmp_path)
    assert out.returncode == 2
    assert "mpi_p2p_smpi: -kernel busy_wait: a simulated run charges each task's FLOPs" in out.stderr


def test_the_fault_switch_is_caught_in_a_simulated_run(tmp_path):
    env = dict(ENV, TASKBENCH_FAULT="corrupt:0,3,5")
    out, _ = simulate("mpi_p2p_smpi", 2, ["-type", "stencil_1d", "-steps", "6", "-width", "8"], tmp_path, env)
    assert out.returncode == 3
    assert "taskbench: validation failed: graph 0, task (t=4, i=" in out.stderr
    assert "expected the output of (t=3, i=5)" in out.stderr


def test_a_simulated_mpi_bulk_is_set_beside_the_papers_bulk_synchronous_figures(tmp_path):
    """mpi_bulk runs the paper's bulk-synchronous MPI (a barrier per timestep): its published
    figures are that row's (8.96 and 27.4 us at 1 and 2 nodes), not the nonblocking MPI's."""
    binary("mpi_bulk_smpi")
    out = taskbench("metg", "mpi_bulk", "--simulate", "small", "--nodes", "1,2", "--steps", "20",
                    "--campaign", "bulk", "--reference", "sc20", tmp_path=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines() if line.startswith(("1\t", "2\t"))]
    assert [(r[1], r[5], r[6]) for r in rows] == [("mpi_bulk_smpi", "MPI bulk sync", "8.96 µs"),
                                                 ("mpi_bulk_smpi", "MPI bulk sync", "27.4 µs")]


def taskbench(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "t.db"), *args],
                          capture_output=True, text=True, timeout=300, env=dict(ENV, PYTHONPATH=str(ROOT / "python")))


def _metg_against_nodes(tmp_path) -> list[list[str]]:
    """`metg --simulate small --nodes 1,2` (campaign "sim"): the rows of its table against nodes."""
    out = taskbench("-q", "metg", "mpi_p2p", "--simulate", "small", "--nodes", "1,2", "--steps", "20",
                    "--campaign", "sim", "--reference", "sc20", tmp_path=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    header = lines.index(next(line for line in lines if line.startswith("nodes\tsystem\tsimulated METG")))
    return [line.split("\t") for line in lines[header + 1:]]


def test_metg_simulate_sweeps_a_campaign_per_node_count_and_stores_them_as_simulated(tmp_path):
    binary("mpi_p2p_smpi")
    rows = _metg_against_nodes(tmp_path)
    assert [(r[0], r[1]) for r in rows] == [("1", "mpi_p2p_smpi"), ("2", "mpi_p2p_smpi")]
    metgs = [float(r[2]) for r in rows]
    assert all(1e-7 < m < 1e-3 for m in metgs)
    assert [r[3] for r in rows] == ["none: deterministic (1 repetition)"] * 2  # one run answers a simulation
    # the paper's row that mpi_p2p runs (registry paper_system): its MPI, stencil_1d
    assert [(r[5], r[6]) for r in rows] == [("MPI", "4.583e-06"), ("MPI", "7.785e-06")]
    import sqlite3
    con = sqlite3.connect(tmp_path / "t.db")
    campaigns = con.execute("SELECT name, machine_id, params FROM campaigns ORDER BY name").fetchall()
    assert [c[0] for c in campaigns] == ["sim-1n", "sim-2n"]
    assert campaigns[1][1].startswith("simulated:small:") and campaigns[1][1].endswith(":2")
    params = json.loads(campaigns[1][2])
    assert params["simulation"]["nodes"] == 2 and params["width"] == 8 and params["reps"] == 1
    nodes = {row[0] for row in con.execute("SELECT nodes FROM runs WHERE campaign='sim-2n' AND status='ok'")}
    assert nodes == {2}
    # Run again, every campaign is replayed: the time to simulate is its stored runs', not the replay's.
    replayed = _metg_against_nodes(tmp_path)
    assert [float(r[2]) for r in replayed] == metgs
    stored = [con.execute("SELECT SUM(wall_seconds) FROM runs WHERE campaign=?", (f"sim-{n}n",)).fetchone()[0]
              for n in (1, 2)]
    assert [float(r[4]) for r in replayed] == pytest.approx(stored, rel=1e-3)


def test_a_simulated_sweep_bisects_from_the_previous_node_counts_crossing(tmp_path):
    """The bisection (measure/sweep/bisect.py) ends between the adaptive plan's two sizes, so the
    METG is the adaptive plan's to the last bit, from fewer runs; the 2-node campaign stores the
    1-node crossing as its seed and probes the seed's size right after the peak."""
    binary("mpi_p2p_smpi")
    for plan in ("adaptive", "bisect"):
        out = taskbench("-q", "metg", "mpi_p2p", "--simulate", "small", "--nodes", "1,2", "--steps", "20",
                        "--campaign", plan, "--plan", plan, tmp_path=tmp_path)
        assert out.returncode == 0, out.stdout + out.stderr
    import sqlite3
    con = sqlite3.connect(tmp_path / "t.db")

    def stored(name):
        params, results = con.execute("SELECT params, results FROM campaigns WHERE name=?", (name,)).fetchone()
        runs = [row[0] for row in con.execute("SELECT iter FROM runs WHERE campaign=? ORDER BY id", (name,))]
        return json.loads(params), json.loads(results)["systems"]["mpi_p2p_smpi"], runs

    for nodes in ("1n", "2n"):
        _, adaptive, adaptive_runs = stored(f"adaptive-{nodes}")
        params, bisect, runs = stored(f"bisect-{nodes}")
        assert params["plan"] == "bisect"
        assert bisect["metg_seconds"] == adaptive["metg_seconds"]
        assert bisect["deciding_iters"] == adaptive["deciding_iters"]
        assert len(runs) < len(adaptive_runs), (runs, adaptive_runs)
    _, first, _ = stored("bisect-1n")
    params, second, runs = stored("bisect-2n")
    seed = params["seeds"]["mpi_p2p_smpi"]
    above, below = first["deciding_iters"]
    assert below < seed < above  # where the 1-node METG crossed
    assert runs[1] == above  # the grid's size at or above the seed, probed right after the peak


def test_a_measured_system_is_refused_on_a_simulated_platform_with_what_to_run(tmp_path):
    binary("mpi_p2p_smpi")  # without it, the harness says it is not available instead
    out = taskbench("run", "serial", "--simulate", "small", tmp_path=tmp_path)
    assert out.returncode == 2
    assert "--simulate: serial has no simulated build (these have: mpi_bulk, mpi_p2p)" in out.stderr
    out = taskbench("run", "mpi_p2p_smpi", "-steps", "2", tmp_path=tmp_path)
    assert out.returncode == 2 and "give --simulate PLATFORM and --nodes N" in out.stderr
    out = taskbench("run", "mpi_p2p", "--simulate", "cory", tmp_path=tmp_path)
    assert out.returncode == 2 and "no such platform; did you mean cori?" in out.stderr
    out = taskbench("metg", "mpi_p2p", "--nodes", "4", tmp_path=tmp_path)
    assert out.returncode == 2 and "--nodes goes with --simulate PLATFORM (real hosts: --hosts FILE)" in out.stderr


def test_a_bad_flag_is_the_core_s_one_line_and_a_run_writes_nothing_on_stderr(tmp_path):
    """What test_engine_stderr.py checks of every system started alone, here under smpirun (which
    prints "Execution failed with code 2." of its own on stdout)."""
    out, _ = simulate("mpi_p2p_smpi", 1, ["-no-such-flag"], tmp_path)
    assert out.returncode == 2
    # SimGrid 4.1 prints this line of its own (a plain fprintf, past every log threshold; 3.32
    # and 3.35 log it as a warning) when a rank exits before MPI_Init: the simulator's line.
    simgrid_exit_line = "Process called exit when leaving - Skipping cleanups\n"
    assert out.stderr.replace(simgrid_exit_line, "") == "taskbench: unknown flag '-no-such-flag' (-h lists the flags)\n"
    out, _ = simulate("mpi_bulk_smpi", 2, ["-steps", "3", "-width", "8", "-type", "stencil_1d"], tmp_path)
    assert out.returncode == 0 and "Total Tasks 24" in out.stdout and out.stderr == ""
