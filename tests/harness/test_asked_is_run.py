"""What the harness asks for is what runs, or nothing runs: a -radix above the width (no task could
have that many dependencies) and a TASKBENCH_FAULT naming a task the graph does not have (it
would never fire) are refused by the core with one line, exit 2, and nothing is stored."""

import json
import sqlite3

from taskbench.measure.analysis import analyze
from taskbench.report.tables import campaign_title
from taskbench.store import Store


def rows(db, table):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return [dict(r) for r in con.execute(f"SELECT * FROM {table} ORDER BY rowid")]


def test_metg_refuses_a_nearest_radix_above_the_width_before_the_campaign(cli, bin_dir):
    code, out, err = cli("-q", "metg", "serial", "--pattern", "nearest", "--radix", "3", "--width", "2",
                         "--steps", "10", "--reps", "1")
    assert code == 2 and out == ""
    assert err == ("taskbench: --radix 3 needs a width of 3 or more, and the sweep is 2 wide (--width; default: "
                   "the cores here): add --width 3, or give --radix 2 or less\n")  # the options' words (issue 61)
    assert not cli.db.exists()  # nothing stored, not even an empty store


def test_metg_title_row_and_report_give_the_radix_that_ran(cli, bin_dir):
    code, out, err = cli("metg", "serial", "--pattern", "nearest", "--radix", "2", "--width", "2",
                         "--steps", "10", "--start-iter", "256", "--reps", "1", "--campaign", "r2",
                         "--no-trace")
    assert code == 0, err
    analysis = analyze(Store(cli.db, read_only=True), "r2")
    assert campaign_title(analysis).startswith("r2: nearest, radix 2, compute_bound, 10 steps x 2 wide")
    stored = rows(cli.db, "runs")
    assert stored and all(r["status"] == "ok" for r in stored)
    for r in stored:
        flags = json.loads(r["flags"])
        assert r["radix"] == 2 and flags[flags.index("-radix") + 1] == "2"
        (graph,) = json.loads(r["report"])["graphs"]
        # nearest radix 2 on 2 points: (t, 0) reads 0, (t, 1) reads 0 and 1, in 9 rows after the first
        assert graph["radix"] == 2 and graph["max_width"] == 2 and graph["dependencies"] == 27


def test_run_refuses_a_fault_on_a_task_the_graph_does_not_have(cli, bin_dir, monkeypatch):
    monkeypatch.setenv("TASKBENCH_FAULT", "corrupt:0,99,1")
    code, out, err = cli("-q", "run", "serial", "-steps", "4", "-width", "4")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("taskbench: serial rejects the environment's TASKBENCH_FAULT: ")
    assert err.endswith(": TASKBENCH_FAULT=corrupt:0,99,1: graph 0 has no task (t=99, i=1): "
                        "4 timesteps x 4 points\n")
    assert not cli.db.exists()


def test_metg_refuses_a_fault_on_a_task_the_sweep_does_not_have(cli, bin_dir, monkeypatch):
    monkeypatch.setenv("TASKBENCH_FAULT", "hang:0,3,2")  # the sweep's graph is 10 x 2: no point 2
    code, out, err = cli("-q", "metg", "serial", "--width", "2", "--steps", "10", "--reps", "1")
    assert code == 2 and out == ""
    assert err == ("taskbench: serial rejects the environment's TASKBENCH_FAULT: TASKBENCH_FAULT=hang:0,3,2: graph 0 has "
                   "no task (t=3, i=2): 10 timesteps x 2 points\n")
    assert not cli.db.exists()  # nothing stored, not even an empty store
