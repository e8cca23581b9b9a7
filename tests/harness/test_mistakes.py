"""Mistakes and accidents around the store: flags a system rejects, Ctrl-C, a damaged or read-only
store, two processes on one campaign, and the JSON export's shape.

None of these is a measurement: each is one line on stderr with a documented exit code, and
nothing is written that was not measured.
"""

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_helpers import REPO
from taskbench.commands.export import PLACEMENT_COLUMNS
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_USAGE, UserError
from taskbench.measure.sweep import campaign
from taskbench.measure.sweep.params import SweepParams
from taskbench.store import RUN_COLUMNS, Store


def table(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def slow_registry(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """A registry with one system, `slow`, that says it started (the marker file) and sleeps."""
    marker = tmp_path / "slow-started"
    script = tmp_path / "slow.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexec sleep 60\n")
    script.chmod(0o755)
    root = tmp_path / "systems"
    (root / "slow").mkdir(parents=True)
    (root / "slow" / "system.toml").write_text(f'[[system]]\nname = "slow"\nbinary = "{script}"\ncores = 1\n')
    monkeypatch.setenv("TASKBENCH_SYSTEMS_DIR", str(root))
    return root, marker


def harness(db, *args) -> subprocess.Popen:
    """`taskbench --db DB ARGS` as a process of its own, which Ctrl-C (SIGINT) interrupts even
    when the tests run where SIGINT is ignored (a background job)."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.Popen([sys.executable, "-m", "taskbench", "--db", str(db), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(condition, what: str, proc: subprocess.Popen):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if condition():
            return
        assert proc.poll() is None, f"the harness ended before {what}: {proc.communicate()}"
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


# -- 1. flags the system rejects ------------------------------------------------------------------

@pytest.mark.parametrize("args,line", [
    (("run", "serial", "-width", "-1"),
     "serial rejects its flags: -width: invalid value '-1'; expected an integer from 1 to 2^60"),
    (("run", "serial", "-steps", "3", "-type", "nosuch"),
     "serial rejects its flags: -type: invalid value 'nosuch'; expected one of trivial, no_comm, "),
    (("metg", "serial", "--flags", "-output nosuch"),
     "serial rejects the sweep's flags: -output: invalid value 'nosuch'; expected an integer"),
])
def test_flags_the_system_rejects_are_one_line_and_store_nothing(cli, bin_dir, args, line):
    for _ in range(2):  # the same mistake twice: still nothing stored
        code, out, err = cli("-q", *args)
        assert code == EXIT_USAGE and out == ""
        assert err.startswith(f"taskbench: {line}") and err.count("\n") == 1, err
    assert not cli.db.exists()  # not even an empty store


def test_a_run_with_good_flags_is_stored_in_a_campaign_of_its_own(cli, bin_dir):
    assert cli("-q", "run", "serial", "-steps", "3", "--campaign", "mine")[0] == 0
    assert table(cli.db, "SELECT name, kind, status FROM campaigns") == [("mine", "run", "done")]
    code, _, err = cli("-q", "run", "serial", "-steps", "3", "--campaign", "mine")
    # Refused before it ran (after the run, the store's own message would say "use --resume").
    assert code == EXIT_USAGE and err == "taskbench: campaign 'mine' already exists (choose another --campaign name)\n"
    assert table(cli.db, "SELECT count(*) FROM runs") == [(1,)]


# -- 2, 3. interrupted ----------------------------------------------------------------------------

def test_a_systems_help_is_shown_as_it_prints_it_and_stores_nothing(bin_dir, tmp_path):
    db = tmp_path / "help.db"
    proc = harness(db, "run", "serial", "-h")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.startswith("Usage: ") and "-steps N" in out and "-worker" not in out  # serial's own flags
    assert not db.exists()  # a question, not a measurement


def test_an_interrupted_run_leaves_no_campaign(tmp_path, monkeypatch):
    _, started = slow_registry(tmp_path, monkeypatch)
    db = tmp_path / "tb.db"
    proc = harness(db, "run", "slow")
    wait_for(started.exists, "the system started", proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == EXIT_INTERRUPTED
    assert err == ("taskbench: interrupted before the run ended: nothing was stored (`taskbench run` "
                   "stores finished runs only; run it again)\n")
    assert not db.exists()  # the store it made for the run is gone with it


def test_an_interrupted_metg_study_counts_the_runs_of_its_sweeps(cli, bin_dir, monkeypatch):
    real, calls = campaign.execute_one, []

    def interrupted_at_the_fifth(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(campaign, "execute_one", interrupted_at_the_fifth)
    code, _, err = cli("-q", "study", "dependencies", "--quick", "--systems", "serial", "--campaign", "deps")
    assert code == EXIT_INTERRUPTED
    assert table(cli.db, "SELECT count(*) FROM runs WHERE campaign='deps'") == [(0,)]
    assert table(cli.db, "SELECT count(*) FROM runs") == [(4,)]  # in the first sweep's campaign
    assert err.startswith("taskbench: interrupted: 4 runs stored; re-run the same command"), err


# -- 4. a damaged store ---------------------------------------------------------------------------

def test_a_damaged_store_is_one_line_for_every_command_and_is_not_written(cli, bin_dir, tmp_path):
    for i in range(12):
        assert cli("-q", "run", "serial", "-steps", "3", "-width", str(i + 1))[0] == 0
    size = cli.db.stat().st_size
    pages = size // 4096
    with open(cli.db, "r+b") as f:  # one page in the middle, all ones
        f.seek(pages // 2 * 4096)
        f.write(b"\xff" * 4096)
    con = sqlite3.connect(cli.db)
    with pytest.raises(sqlite3.DatabaseError):  # what SQLite itself says of it
        con.execute("PRAGMA quick_check").fetchall()
    con.close()
    before = hashlib.sha256(cli.db.read_bytes()).hexdigest()
    for args in (("campaigns",), ("run", "serial", "-steps", "3"), ("report", "--html", "r.html"),
                 ("export", "--json", "x.json"), ("export", "--csv", "x.csv"),
                 ("metg", "serial", "--steps", "3")):
        code, out, err = cli("-q", *args)
        assert code == EXIT_ENVIRONMENT, (args, err)
        assert err.startswith(f"taskbench: {cli.db}: the database is damaged (database disk image is "
                              "malformed); nothing was read or written. Move it aside"), err
        assert err.count("\n") == 1 and "`sqlite3" in err and out == ""
    assert hashlib.sha256(cli.db.read_bytes()).hexdigest() == before
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "x.json").exists()


# -- 5. a read-only store -------------------------------------------------------------------------

def test_readers_open_the_store_read_only_and_see_an_earlier_schemas_columns(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)  # as an earlier harness wrote it: no `results` column
    con.executescript("""
        CREATE TABLE campaigns (name TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL,
          created TEXT NOT NULL, finished TEXT, params TEXT NOT NULL, machine_id TEXT NOT NULL,
          machine TEXT NOT NULL, git_revision TEXT, harness TEXT);
        CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, campaign TEXT NOT NULL, key TEXT NOT NULL,
          system TEXT NOT NULL, status TEXT NOT NULL, UNIQUE (campaign, key));
        INSERT INTO campaigns VALUES ('old', 'metg', 'done', 'then', NULL, '{}', 'm', '{}', NULL, NULL);
        INSERT INTO runs (campaign, key, system, status) VALUES ('old', 'k', 'x', 'ok');
        """)
    con.close()
    before = path.read_bytes()
    store = Store(path, read_only=True)
    assert store.campaign("old")["results"] is None
    assert store.runs("old")[0]["background_cpu_seconds"] is None
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.db.execute("INSERT INTO main.runs (campaign, key, system, status) VALUES ('old', 'j', 'x', 'ok')")
    store.close()
    assert path.read_bytes() == before  # not upgraded: a reader writes nothing
    with pytest.raises(UserError, match="no such store"):
        Store(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()


def test_a_reader_of_a_wal_store_leaves_no_journal_files_behind(tmp_path):
    """SQLite leaves the -wal and -shm files a read-only connection made; the store removes them
    when it is the store's last user, and leaves them to a writer that still has it open."""
    path = tmp_path / "w.db"
    first = Store(path)  # a writer: WAL, its journal removed as it closes
    first.create_campaign("a", "run", {}, {}, "m", None, {})  # an empty store it made it would remove
    first.close()
    journal = [tmp_path / "w.db-wal", tmp_path / "w.db-shm"]
    assert not any(f.exists() for f in journal)
    reader = Store(path, read_only=True)
    assert [c["name"] for c in reader.campaigns()] == ["a"] and all(f.exists() for f in journal)
    reader.close()
    assert not any(f.exists() for f in journal)
    writer = Store(path)
    writer.create_campaign("c", "run", {}, {}, "m", None, {})
    reader = Store(path, read_only=True)
    assert [c["name"] for c in reader.campaigns()] == ["a", "c"]
    reader.close()
    assert all(f.exists() for f in journal)  # the writer's: left alone
    writer.create_campaign("d", "run", {}, {}, "m", None, {})
    writer.close()
    assert not any(f.exists() for f in journal)


@pytest.fixture
def unwritable(tmp_path):
    """Makes a file or folder unwritable in a way that holds for root too: the immutable
    attribute (root ignores permission bits; chattr needs CAP_LINUX_IMMUTABLE, which root has),
    else, for a user, permission bits. Undone at the end."""
    done = []

    def make(path: Path) -> None:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0:
            done.append(lambda: subprocess.run(["chattr", "-i", str(path)], check=True))
        else:
            mode = path.stat().st_mode
            path.chmod(0o555 if path.is_dir() else 0o444)
            done.append(lambda: path.chmod(mode))
        if os.access(path, os.W_OK):
            pytest.skip(f"cannot make {path} unwritable here (no chattr, and permission bits do not bind)")

    yield make
    for undo in reversed(done):
        undo()


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_store_is_read_and_a_writing_command_says_why_not(cli, bin_dir, unwritable, what):
    assert cli("-q", "run", "serial", "-steps", "3", "--campaign", "one")[0] == 0
    folder = cli.db.parent / "shelf"
    folder.mkdir()
    db = folder / "tb.db"
    db.write_bytes(cli.db.read_bytes())
    unwritable(db if what == "file" else folder)
    code, out, err = cli("-q", "--db", str(db), "campaigns")
    assert code == 0, err
    assert [line.split("\t")[:3] for line in out.splitlines()[1:]] == [["one", "run", "done"]]
    code, out, _ = cli("-q", "--db", str(db), "export", "--json", "-")
    assert code == 0 and [r["campaign"] for r in json.loads(out)] == ["one"]
    assert cli("-q", "--db", str(db), "report", "--html", str(cli.db.parent / "r.html"))[0] == 0
    # compare and predict only read too: they get as far as the campaigns' contents.
    code, _, err = cli("-q", "--db", str(db), "compare", "one", "one")
    assert (code, err) == (EXIT_USAGE, "taskbench: campaign 'one' is a run campaign, not metg\n")
    code, _, err = cli("-q", "--db", str(db), "predict", "--system", "serial", "--work", "1", "--tasks-per-core", "1")
    assert code == EXIT_USAGE and "no stored metg campaign measured 'serial'" in err, err
    code, _, err = cli("-q", "--db", str(db), "run", "serial", "-steps", "3")
    assert code == EXIT_ENVIRONMENT
    assert err == (f"taskbench: {db}: the store is read-only, and this command writes to it; make it writable "
                   "or pass another --db\n" if what == "file" else
                   f"taskbench: {db}: its folder {folder} is not writable, and this command writes to the "
                   "store (SQLite keeps its journal beside it); make the folder writable or pass another --db\n")


# -- 6. one process per campaign ------------------------------------------------------------------

def test_a_second_resume_of_a_running_campaign_refuses_at_once(cli, tmp_path, monkeypatch):
    _, started = slow_registry(tmp_path, monkeypatch)
    store = Store(cli.db)
    campaign.create(store, "same", "metg", SweepParams(systems=["slow"], steps=2, width=1, reps=1,
                                                        timeout=60.0).to_dict(), None)
    store.close()
    first = harness(cli.db, "-q", "metg", "--resume", "same", "--no-trace")
    try:
        wait_for(started.exists, "the first resume's run started", first)
        code, out, err = cli("-q", "metg", "--resume", "same")
        assert code == EXIT_ENVIRONMENT and out == ""
        assert err == (f"taskbench: another process (pid {first.pid}) is running campaign 'same' of {cli.db}; "
                       "wait for it to end or stop it\n")
        assert table(cli.db, "SELECT count(*) FROM runs") == [(0,)]  # the second one ran nothing
    finally:
        first.kill()  # SIGKILL: no clean-up of its own
        first.communicate()
    # The claim died with its holder: the campaign can be taken again.
    store = Store(cli.db)
    store.claim("same")
    claims = list(cli.db.parent.glob("tb.db-claim-*"))
    assert len(claims) == 1 and claims[0].read_text() == f"{os.getpid()}\n"
    store.close()
    assert not list(cli.db.parent.glob("tb.db-claim-*"))


def test_a_study_being_run_cannot_be_resumed_by_another(cli):
    store = Store(cli.db)
    campaign.create(store, "study-x", "study", {"study": "imbalance"}, None)
    store.claim("study-x")  # another Store: another open file, so another claimant, as a process is
    try:
        code, _, err = cli("-q", "study", "imbalance", "--resume", "study-x")
        assert code == EXIT_ENVIRONMENT
        assert err == (f"taskbench: another process (pid {os.getpid()}) is running campaign 'study-x' of "
                       f"{cli.db}; wait for it to end or stop it\n")
    finally:
        store.close()


# -- 7. export --json -----------------------------------------------------------------------------

def test_export_json_is_an_array_of_one_flat_record_per_run(cli, bin_dir, tmp_path):
    assert cli("-q", "run", "serial", "-steps", "3", "--campaign", "a")[0] == 0
    assert cli("-q", "run", "serial", "-steps", "5", "-width", "2", "--campaign", "b")[0] == 0
    assert cli("-q", "export", "--json", "runs.json")[0] == 0
    records = json.loads((tmp_path / "runs.json").read_text())
    assert isinstance(records, list) and len(records) == 2
    assert all(list(r) == ["id", *RUN_COLUMNS, *PLACEMENT_COLUMNS] for r in records)
    # A run campaign takes no placement probes: nothing to say of its runs' placement.
    assert all(r["one_way_ns"] is None and r["placement"] is None for r in records)
    assert [(r["campaign"], r["steps"], r["width"]) for r in records] == [("a", 3, 4), ("b", 5, 2)]
    assert records[1]["flags"] == ["-steps", "5", "-width", "2"]  # nested, not a JSON string
    assert records[1]["report"]["graphs"][0]["timesteps"] == 5
    assert cli("-q", "export", "--json", "campaigns.json", "--campaigns", "--campaign", "b")[0] == 0
    (only,) = json.loads((tmp_path / "campaigns.json").read_text())
    assert only["name"] == "b" and only["params"]["flags"] == ["-steps", "5", "-width", "2"]
    try:
        import pandas
    except ImportError:
        return  # the shape above is what pandas.read_json loads; checked with it where installed
    frame = pandas.read_json(tmp_path / "runs.json")
    assert frame.shape == (2, 1 + len(RUN_COLUMNS) + len(PLACEMENT_COLUMNS)) and list(frame["campaign"]) == ["a", "b"]
