"""Failures are data: validation faults, crashes and timeouts are stored with their reason, and
a sweep goes on past them. Flags the system rejects are the user's mistake, not data: one line,
nothing stored (test_mistakes.py has more)."""

import json
import sqlite3


def runs(db):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return [dict(r) for r in con.execute("SELECT * FROM runs ORDER BY id")]


def test_bad_flags_are_one_line_and_not_stored(cli, bin_dir):
    code, out, err = cli("-q", "run", "serial", "-steps", "4", "-iters", "5")
    assert code == 2 and out == ""
    assert err == "taskbench: serial rejects its flags: unknown flag '-iters' (-h lists the flags)\n"
    assert not cli.db.exists()


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
    from taskbench.launch.runner import _last_line
    text = "-----\nmpiexec has detected an attempt to run as root.\n\nRunning as root is bad.\n-----\n"
    assert _last_line(text) == "mpiexec has detected an attempt to run as root."
    assert _last_line("noise\ntaskbench: validation failed: graph 0\n") == "taskbench: validation failed: graph 0"


# ---- MPI launches: which rank died, and how (taskbench.launch.diagnosis) ----

OPEN_MPI_KILL = """--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).
--------------------------------------------------------------------------
"""
HYDRA_SEGV = """
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 27567 RUNNING AT vm
=   EXIT CODE: 9
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)
This typically refers to a problem with your application.
"""


def test_open_mpi_names_the_rank_and_the_signal():
    from taskbench.launch.runner import _classify
    assert _classify(137, OPEN_MPI_KILL) == ("crashed", "rank 1 killed by SIGKILL (on vm)")


def test_hydra_names_a_pid_so_the_rank_comes_from_the_statuses_or_the_first_to_end():
    from taskbench.launch.diagnosis import rank_death
    pids = {0: 27566, 1: 27568}
    # Hydra's banner PID may be another rank's; its exit string's signal is the failed rank's
    # ("EXIT CODE: 9" is not). One bad status names the rank, whatever ended first.
    one_bad = HYDRA_SEGV + "[mpiexec@vm] Exit codes: [vm] 0,139\n"
    assert rank_death(one_bad, (0, 27566), pids).describe() == "rank 1 killed by SIGSEGV (pid 27568 on vm)"
    # Several bad statuses (the clean-up's kills show too): the rank that ended first.
    two_bad = HYDRA_SEGV + "[mpiexec@vm] Exit codes: [vm] 9,139\n"
    assert rank_death(two_bad, (1, 27568), pids).describe() == "rank 1 killed by SIGSEGV (pid 27568 on vm)"
    # Two hosts: the statuses are not in rank order, so they are not used.
    hosts = HYDRA_SEGV + "[mpiexec@a] Exit codes: [a] 0,139 [b] 0,0\n"
    assert rank_death(hosts, (2, 555)).describe() == "rank 2 killed by SIGSEGV (on vm)"
    # Nothing to go by: the launcher's PID, no rank.
    assert rank_death(two_bad).describe() == "a rank killed by SIGSEGV (pid 27567 on vm)"


def test_slurm_names_the_task():
    from taskbench.launch.diagnosis import rank_death
    death = rank_death("srun: error: node7: task 3: Killed\nsrun: Terminating job step 12.0\n")
    assert death.describe() == "rank 3 killed by SIGKILL (on node7)"
    assert rank_death("srun: error: node7: tasks 0-1: Exited with exit code 3\n") is None


def test_the_systems_own_message_beats_the_launchers_banner():
    """A validation failure through mpirun: the reason is the rank's line, not mpirun's banner."""
    from taskbench.launch.runner import _classify
    text = ("taskbench: validation failed: graph 0, task (t=2, i=2): input 0: expected the output "
            "of (t=1, i=1), found (t=91, i=1)\n" + OPEN_MPI_KILL.replace(
                "mpirun.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).",
                "mpirun.openmpi detected that one or more processes exited with non-zero status"))
    status, reason = _classify(3, text)
    assert status == "validation" and reason.startswith("taskbench: validation failed: graph 0, task (t=2")
