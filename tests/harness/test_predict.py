"""`taskbench predict` (the paper §V-I, docs/predict.md) against the paper's own numbers."""

import sys

import pytest

from taskbench.measure.predict import Application, predict
from test_external import FAKE_PORT

# The paper §IV-B: MPI's METG(50%) on Cori (32 cores per node), stencil, 1000 steps: 4.6 us at
# 1 node, 12 us at 64, 28 us at 128, 61 us at 256. Problem size 2^12 is 20 us per task, so 2^18
# is 64 x 20 us = 1.28 ms per task on one node: W = 1.28 ms x 1000 tasks per core x 32 cores.
PAPER_METG = {1: 4.6e-6, 64: 12e-6, 128: 28e-6, 256: 61e-6}
PAPER_WORK = 1.28e-3 * 1000 * 32
PAPER_ARGS = ["--metg", "1=4.6e-6", "--metg", "64=12e-6", "--metg", "128=28e-6", "--metg", "256=61e-6",
              "--work", str(PAPER_WORK), "--tasks-per-core", "1000", "--cores-per-node", "32"]


def test_paper_problem_2_18_strong_scales_to_64_nodes():
    result = predict(Application(PAPER_WORK, 32, tasks_per_core=1000), PAPER_METG)
    granularity = {r.nodes: r.granularity for r in result.rows}
    assert granularity[1] == pytest.approx(1.28e-3, rel=1e-12)
    assert granularity[64] == pytest.approx(20e-6, rel=1e-12)  # 2^12 per task again: the 20 us of Fig. 4
    assert granularity[128] == pytest.approx(10e-6, rel=1e-12)
    assert [r.efficient for r in result.rows] == [True, True, False, False]
    assert result.limit.nodes == 64  # "the problem size 2^18 strong scales to 64 nodes" (§IV-B, Fig. 5)
    assert result.limit.ideal_time == pytest.approx(20e-3, rel=1e-12)
    assert result.crossing_nodes is None  # METG differs per node count: no single crossing


def test_one_metg_gives_the_ideal_limit_intersection():
    # The "limit 50%" line is METG x tasks per core (§V-I): with 12 us and 1000, 12 ms, reached
    # by ideal scaling from 1.28 s at 1.28 s / 12 ms nodes.
    result = predict(Application(PAPER_WORK, 32, tasks_per_core=1000), {n: 12e-6 for n in (64, 128)})
    assert result.crossing_time == pytest.approx(12e-3, rel=1e-12)
    assert result.crossing_nodes == pytest.approx(1.28 / 12e-3, rel=1e-12)
    assert result.limit.nodes == 64


def test_a_fixed_number_of_tasks_limits_the_cores():
    # 64 tasks of 1 ms each: granularity stays 1 ms, but 4 nodes of 32 cores outnumber the tasks.
    result = predict(Application(64e-3, 32, tasks=64), {1: 1e-5, 2: 1e-5, 4: 1e-5})
    assert [r.efficient for r in result.rows] == [True, True, False]
    assert result.limit.nodes == 2 and result.limit.ideal_time == pytest.approx(1e-3)


def test_predict_command_prints_the_paper_limit(cli):
    code, out, err = cli("-q", "predict", *PAPER_ARGS)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[-1] == "limit: 64 nodes, time to solution 20.0 ms"
    row = dict(zip(lines[0].split("\t"), lines[2].split("\t")))  # 64 nodes
    # -q: the figures as numbers, in seconds (for scripts)
    assert float(row["task granularity"]) == pytest.approx(20e-6) and float(row["METG"]) == pytest.approx(12e-6)
    assert row[">= 50% efficient"] == "yes"


def test_a_limit_beyond_the_node_counts_given_is_said_and_counts_are_whole_numbers(cli):
    code, out, err = cli("-q", "predict", "--metg", "1.4e-6", "--work", "100", "--tasks-per-core", "1000",
                         "--cores-per-node", "16", "--nodes", "1,2,1024")
    assert code == 0, err
    lines = out.splitlines()
    rows = [dict(zip(lines[0].split("\t"), line.split("\t"))) for line in lines[1:4]]
    assert [r["tasks"] for r in rows] == ["16000", "32000", "16384000"]
    assert rows[2]["nodes"] == "1024" and rows[2]["cores"] == "16384" and rows[2][">= 50% efficient"] == "yes"
    assert lines[-2].startswith("limit: none up to 1,024 nodes (still >= 50% efficient, time ")
    assert max(map(len, lines[-2:])) <= 100
    # n* = W / (S C METG) = 100 / (1000 x 16 x 1.4 us) = 4464.3 nodes
    assert lines[-1].startswith("ideal scaling meets METG at 4,460 nodes, time to solution 1.40 ms")


@pytest.mark.parametrize("args, message", [
    (["--work", "1", "--tasks", "10"], "give the METG: --metg SECONDS (or NODES=SECONDS ...), --system NAME or --reference-system LABEL"),
    (["--metg", "fast", "--work", "1", "--tasks", "10"], "--metg 'fast': not a number"),
    (["--metg", "1e-6", "--metg", "2=1e-6", "--work", "1", "--tasks", "10"], "not both"),
    (["--metg", "1e-6", "--work", "-1", "--tasks", "10"], "predict: --work -1: must be positive"),
    (["--metg", "1e-6", "--work", "1", "--tasks", "10", "--nodes", "1,2.5"], "must be a whole number of nodes"),
    # No store yet: predict only reads one, and says so (a store without the system: test_mistakes.py).
    (["--system", "nowhere", "--work", "1", "--tasks", "10"], "no such store (`taskbench run` or `metg` creates one)"),
])
def test_predict_rejects_bad_input_in_one_line(cli, args, message):
    code, _, err = cli("predict", *args)
    assert code == 2 and message in err and err.count("\n") == 1


def test_predict_takes_a_stored_metg(cli, tmp_path):
    port = tmp_path / "port.py"
    port.write_text(FAKE_PORT)
    code, out, err = cli("-q", "metg", "--external", f"fake=1:{sys.executable} -S {port} 1", "--steps", "10",
                         "--width", "1", "--start-iter", "16384", "--reps", "1", "--tries", "1", "--refine", "0")
    assert code == 0, err
    metg = float(out.splitlines()[1].split("\t")[2])
    code, out, err = cli("-q", "predict", "--system", "fake", "--work", str(metg * 1000 * 4 * 1.001),
                         "--tasks-per-core", "1000", "--cores-per-node", "1", "--nodes", "1,2,4,8",
                         "--allow-unreliable")  # the math, not the noise: this machine may be busy
    assert code == 0, err
    # Granularity is a hair over metg x 4 at 1 node: still efficient at 4 nodes, the crossing.
    limit, crossing = out.splitlines()[-2:]
    assert limit.startswith("limit: 4 nodes, time to solution ")
    assert crossing.startswith("ideal scaling meets METG at 4 nodes")

    def ms(line):
        value, unit = line.rsplit("time to solution ", 1)[1].split()
        return float(value) * {"ms": 1e-3, "µs": 1e-6, "s": 1.0}[unit]
    # The limit's time is 1.001 times the crossing's: equal to the 3 digits shown, give or take one.
    assert ms(limit) == pytest.approx(ms(crossing), rel=0.006)
