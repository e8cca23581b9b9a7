"""A sweep killed with SIGKILL keeps every stored run; --resume finishes it without duplicates."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from harness_helpers import REPO


def stored(db):
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute("SELECT id, key, status, elapsed_seconds FROM runs ORDER BY id").fetchall()
    finally:
        con.close()


def test_sigkill_then_resume(tmp_path, bin_dir):
    db = tmp_path / "kill.db"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    env.pop("TASKBENCH_FAULT", None)
    cmd = [sys.executable, "-m", "taskbench", "--db", str(db), "-q", "metg", "serial", "openmp_for",
           "--steps", "100", "--width", "2", "--start-iter", "16384", "--reps", "3", "--campaign", "k"]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    before = []
    while time.monotonic() < deadline:
        if db.exists():
            try:
                before = stored(db)
            except sqlite3.OperationalError:
                before = []
            if len(before) >= 8:
                break
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep finished before it could be killed: " + proc.stderr.read().decode()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = stored(db)  # what the killed process had committed
    assert len(before) >= 8

    done = subprocess.run([*cmd[:cmd.index("metg") + 1], "--resume", "k"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = stored(db)
    keys = [k for _, k, _, _ in after]
    assert len(keys) == len(set(keys)), "a run was stored twice"
    assert after[:len(before)] == before, "a run stored before the kill was lost or changed"
    assert len(after) > len(before)

    con = sqlite3.connect(db)
    assert con.execute("SELECT status FROM campaigns WHERE name='k'").fetchone()[0] == "done"
    # Replaying the plan over the finished campaign runs nothing new.
    again = subprocess.run([*cmd[:cmd.index("metg") + 1], "--resume", "k"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and stored(db) == after
