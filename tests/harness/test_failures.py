"""Failures are data: bad flags, validation faults, crashes and timeouts are stored with their
reason, and a sweep goes on past them."""

import json
import sqlite3


def runs(db):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return [dict(r) for r in con.execute("SELECT * FROM runs ORDER BY id")]


def test_bad_flags_are_stored_with_the_reason(cli, bin_dir):
    code, _, _ = cli("-q", "run", "serial", "-steps", "4", "-iters", "5")
    assert code == 2
    (run,) = runs(cli.db)
    assert run["status"] == "bad_flags" and "-iters" in run["reason"]
    assert run["exit_code"] == 2


def test_validation_fault_is_stored(cli, bin_dir, monkeypatch):
    monkeypatch.setenv("TASKBENCH_FAULT", "corrupt:0,2,1")
    code, _, _ = cli("-q", "run", "serial", "-steps", "4", "-width", "2", "-type", "stencil_1d")
    assert code == 3
    (run,) = runs(cli.db)
    assert run["status"] == "validation"
    assert run["reason"].startswith("taskbench: validation failed")
    assert json.loads(run["env"])["TASKBENCH_FAULT"] == "corrupt:0,2,1"  # provenance keeps it


def test_timeout_is_stored(cli, fake_systems):
    code, _, _ = cli("-q", "run", "--timeout", "0.5", "sleepy")
    assert code == 3
    (run,) = runs(cli.db)
    assert run["status"] == "timeout" and "0.5 s timeout" in run["reason"]
    assert run["wall_seconds"] < 10


def test_sweep_goes_on_past_failing_systems(cli, fake_systems):
    code, out, err = cli("-q", "metg", "serial", "faulty", "crashy", "--steps", "10", "--width", "2",
                         "--start-iter", "1024", "--reps", "2", "--html", "report.html")
    assert code == 3  # measured, but some runs failed
    stored = runs(cli.db)
    by_system = {}
    for r in stored:
        by_system.setdefault(r["system"], []).append(r)
    assert all(r["status"] == "validation" for r in by_system["faulty"])
    assert all(r["status"] == "crashed" and "SIGSEGV" in r["reason"] for r in by_system["crashy"])
    assert len(by_system["faulty"]) == 4  # two sizes x two reps, then it stops
    assert all(r["status"] == "ok" for r in by_system["serial"]) and len(by_system["serial"]) > 4
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:] if "\t" in line}
    assert float(rows["serial"][2]) > 0  # serial still has its METG
    assert "validation" in rows["faulty"][-1]
    page = (cli.db.parent / "report.html").read_text()
    assert "Failed runs (8)" in page and "SIGSEGV" in page


def test_reason_is_the_headline_of_a_launcher_banner():
    from taskbench.runner import _last_line
    text = "-----\nmpiexec has detected an attempt to run as root.\n\nRunning as root is bad.\n-----\n"
    assert _last_line(text) == "mpiexec has detected an attempt to run as root."
    assert _last_line("noise\ntaskbench: validation failed: graph 0\n") == "taskbench: validation failed: graph 0"
