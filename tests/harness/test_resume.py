"""A sweep SIGKILLed at any point keeps every stored run, leaves no benchmark process behind,
and --resume finishes it with no run lost and none stored twice.

One campaign is killed again and again: at a random instant once runs are stored; while a
system runs, one kill per MPI implementation built here; while a finished run waits to be
stored (the test holds the database's write lock, so the harness is stuck inside the store when
it dies); and at a random instant of a resumed harness's life, start-up included. After each
kill, no process carrying the harness's environment may be left.

The systems killed while running are variants of the MPI systems that hang (TASKBENCH_FAULT),
so their ranks would never end by themselves: only the harness's tie to its children can have
ended them (a short run would end by itself before anyone looked). TASKBENCH_RESUME_SEED
replays a failing order of instants.
"""

import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from harness_helpers import REPO
from taskbench.process import guard, leftovers
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout

PROBE = "TASKBENCH_RESUME_PROBE"  # in the harness's environment, so in every process it starts
# A killed harness's runs are gone within CLEANUP_SECONDS when the guard is quick (measured:
# < 0.1 s; test_orphans holds the guard to that). Here they must be gone at all: a leftover that
# takes longer is reported as a warning with what it was doing, and fails only after
# LEFTOVER_SECONDS (a SIGTERMed mpirun alone ends its ranks within 4 s, docs/reliability.md).
CLEANUP_SECONDS = 1.0
LEFTOVER_SECONDS = 10.0
TIMEOUT = 6.0  # per run: the hung variants time out; a real run takes < 0.5 s on a quiet machine, but CI
# runs this beside another test on 2 cores, where a real mpi_p2p run once took more than 2 s
SEED = int(os.environ.get("TASKBENCH_RESUME_SEED", time.time_ns() % 100000))


def stored(db):
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute("SELECT id, key, status, elapsed_seconds FROM runs ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # no table yet
        return []
    finally:
        con.close()


def comm(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


class Sweep:
    """The harness as a subprocess, started, watched and killed as the test says."""

    def __init__(self, tmp_path, systems, registry_dir):
        self.db = tmp_path / "kill.db"
        self.cwd = tmp_path
        self.systems = systems
        self.marker = leftovers.new_marker()
        self.env = dict(os.environ, PYTHONPATH=str(REPO / "python"), TASKBENCH_SYSTEMS_DIR=str(registry_dir),
                        **{PROBE: self.marker})
        self.env.pop("TASKBENCH_FAULT", None)
        self.base = [sys.executable, "-m", "taskbench", "--db", str(self.db), "-q", "metg"]
        self.fresh = [*systems, "--steps", "50", "--width", "2", "--start-iter", "16384",
                      "--reps", "2", "--tries", "1", "--timeout", f"{TIMEOUT:g}", "--campaign", "k",
                      # The sweep's own plan (a replay of the repetitions added near the crossing
                      # is test_settle.py's): 16 s more here, for nothing this test looks at.
                      "--target-interval", "0"]
        self.proc = None
        self.cleanup_times = []

    def start(self, resume: bool) -> None:
        args = [*self.base, *(["--resume", "k"] if resume else self.fresh)]
        self.proc = subprocess.Popen(args, env=self.env, cwd=self.cwd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)

    def benchmarks(self) -> list[int]:
        """The harness's live children and their descendants: every process with its marker."""
        return [p for p in leftovers.processes_with(PROBE, self.marker) if p != self.proc.pid]

    def wait_for(self, condition, what: str, within: float = 60.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            assert self.proc.poll() is None, (f"the sweep ended before {what} (seed {SEED}): "
                                              + self.proc.stderr.read().decode())
            time.sleep(0.005)
        pytest.fail(f"timed out waiting for {what} (seed {SEED})")

    def kill(self, when: str) -> list:
        """SIGKILL the harness; then nothing it started may survive. Returns the stored runs."""
        assert self.proc.poll() is None, f"the sweep finished before the kill {when} (seed {SEED})"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        start = time.monotonic()
        left = leftovers.wait_until_gone(PROBE, self.marker, CLEANUP_SECONDS)
        slow = [diagnose(p) for p in left]
        left = leftovers.wait_until_gone(PROBE, self.marker, LEFTOVER_SECONDS - CLEANUP_SECONDS) if left else []
        self.cleanup_times.append(time.monotonic() - start)
        names = [leftovers.describe(p) for p in left]
        leftovers.kill_all(PROBE, self.marker)
        assert not names, (f"killed {when}, the harness left {names} running (seed {SEED}); "
                           f"after {CLEANUP_SECONDS:g} s: {slow}")
        if slow:
            warnings.warn(f"killed {when}, the harness's runs took {self.cleanup_times[-1]:.1f} s to end "
                          f"(seed {SEED}); after {CLEANUP_SECONDS:g} s: {slow}")
        return stored(self.db)


def diagnose(pid: int) -> str:
    """A leftover as the guard should have seen it: its state, its parent, the harness mark in
    its environment, and whether the guard of that mark is still running."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        state, parent = stat[stat.rfind(")") + 2:].split()[:2]
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return f"{pid}: gone meanwhile"
    prefix = f"{guard.HARNESS_MARK_VARIABLE}=".encode()
    mark = next((v[len(prefix):] for v in environ if v.startswith(prefix)), None)
    if mark is None:
        return f"{leftovers.describe(pid)}: state {state}, parent {parent}, no harness mark"
    guards = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().endswith(b"guard\0" + mark + b"\0"):
                guards.append(f"{entry.name} in state {(entry / 'stat').read_text().rsplit(')', 1)[1].split()[0]}")
        except OSError:
            pass
    return (f"{leftovers.describe(pid)}: state {state}, parent {parent}, harness mark {mark.decode()}, "
            f"its guard {', '.join(guards) or 'not running'}")


def registry_with_hung_variants(tmp_path) -> tuple[Path, list[str], dict[str, str]]:
    """The real registry plus a variant of each MPI system built here whose rank 1 hangs; the
    systems to sweep (serial, openmp_for, the MPI systems and their hung variants); and the
    hung variants with the fault that marks their processes."""
    real = Registry(find_layout())
    folder = tmp_path / "systems"
    for toml in REPO.glob("systems/*/system.toml"):
        (folder / toml.parent.name).mkdir(parents=True)
        shutil.copy(toml, folder / toml.parent.name / "system.toml")
    names, hung, entries = ["serial", "openmp_for"], {}, []
    # Rank 1 (column 1 of 2) hangs; a distinct row per variant tells their processes apart.
    for mpi, spec in (("mpi_p2p", "hang:0,1,1"), ("mpi_p2p_mpich", "hang:0,2,1")):
        system = real.systems.get(mpi)
        if system is None or not system.available:
            continue
        hung[mpi + "_hang"] = spec
        names += [mpi, mpi + "_hang"]
        entries.append(f'[[system]]\nname = "{mpi}_hang"\nbinary = "{system.binary}"\n'
                       f'launcher = "mpirun"\nmpi = "{system.mpi or "openmpi"}"\nranks = 2\ncores = 1\n'
                       f'env = {{ TASKBENCH_FAULT = "{spec}" }}\n')
    (folder / "zz_hung").mkdir()
    (folder / "zz_hung" / "system.toml").write_text("\n".join(entries))
    return folder, names, hung


def test_sigkill_at_any_point_then_resume(tmp_path, bin_dir):
    rng = random.Random(SEED)
    registry_dir, systems, hung = registry_with_hung_variants(tmp_path)
    sweep = Sweep(tmp_path, systems, registry_dir)
    history = []  # what was stored at each kill: each must survive every later kill

    # 1. At a random instant, once a few runs are stored.
    sweep.start(resume=False)
    sweep.wait_for(lambda: len(stored(sweep.db)) >= 3, "3 stored runs")
    time.sleep(rng.uniform(0, 0.5))
    history.append(sweep.kill("at a random instant"))

    # 2. While a system runs: an MPI job whose rank 1 hangs, so that only the launcher's
    # teardown can end its ranks; once per MPI implementation.
    for name, spec in hung.items():
        binary = "mpi_p2p_mpich" if "mpich" in name else "mpi_p2p"
        sweep.start(resume=True)
        sweep.wait_for(lambda: [p for p in sweep.benchmarks()
                                if p in leftovers.processes_with("TASKBENCH_FAULT", spec) and comm(p) == binary],
                       f"{name}'s ranks")
        time.sleep(rng.uniform(0, 0.3))
        history.append(sweep.kill(f"while {name} ran"))

    # 3. While a finished run waits to be stored: with the write lock held here, the harness
    # runs one system, then blocks in the store; it dies there.
    sweep.start(resume=True)
    sweep.wait_for(lambda: [p for p in sweep.benchmarks() if comm(p) in sweep.systems], "a run")
    lock = sqlite3.connect(sweep.db, timeout=30, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    count = len(lock.execute("SELECT id FROM runs").fetchall())
    quiet_since = None
    while quiet_since is None or time.monotonic() - quiet_since < 0.5:
        # Blocked in the store: no benchmark process, and no new one for 0.5 s.
        if sweep.benchmarks():
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        assert sweep.proc.poll() is None, sweep.proc.stderr.read().decode()
        time.sleep(0.01)
    sweep.proc.send_signal(signal.SIGKILL)
    sweep.proc.wait()
    assert len(lock.execute("SELECT id FROM runs").fetchall()) == count  # it never got to store
    lock.execute("ROLLBACK")
    lock.close()
    history.append(stored(sweep.db))

    # 4. At a random instant of a resumed harness's life, start-up included.
    sweep.start(resume=True)
    time.sleep(rng.uniform(0, 1.5))
    history.append(sweep.kill("at a random instant after a resume"))

    done = subprocess.run([*sweep.base, "--resume", "k"], env=sweep.env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == (3 if hung else 0), done.stderr  # 3: the hung variants' runs failed
    after = stored(sweep.db)
    keys = [k for _, k, _, _ in after]
    assert len(keys) == len(set(keys)), f"a run was stored twice (seed {SEED})"
    for before in history:
        assert after[:len(before)] == before, f"a run stored before a kill was lost or changed (seed {SEED})"
    assert len(after) > len(history[-1])
    # trace/SYSTEM/...: the traced run at METG after the sweep (traces.py), of a system that had one
    system_of = {k: k.split("/")[1] if k.startswith("trace/") else k.split("/")[0] for k in keys}
    assert {system_of[k] for k in keys if not k.startswith("trace/")} == set(sweep.systems)
    for _, key, status, _ in after:
        assert status == ("timeout" if system_of[key] in hung else "ok"), key

    con = sqlite3.connect(sweep.db)
    assert con.execute("SELECT status FROM campaigns WHERE name='k'").fetchone()[0] == "done"
    con.close()
    # Replaying the plan over the finished campaign runs nothing new: nothing was lost.
    again = subprocess.run([*sweep.base, "--resume", "k"], env=sweep.env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == done.returncode and stored(sweep.db) == after
    assert leftovers.processes_with(PROBE, sweep.marker) == []


def test_resuming_a_complete_campaign_runs_nothing_and_keeps_its_figures(cli, bin_dir, monkeypatch):
    assert cli("-q", "metg", "serial", "--width", "1", "--steps", "10", "--reps", "1", "--campaign", "done")[0] == 0
    con = sqlite3.connect(cli.db)
    before = con.execute("SELECT machine, results FROM campaigns WHERE name='done'").fetchone()
    runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()

    def no_probe(*_):
        raise AssertionError("a complete campaign's placement was probed again")
    monkeypatch.setattr("taskbench.measure.placement.probe", no_probe)
    code, out, err = cli("metg", "--resume", "done")
    assert code == 0, err
    assert "campaign done is already complete; showing its results" in err
    assert re.search(r"\n0 runs executed, [1-9][0-9]* reused from the store, 0 failed\n", err), err
    con = sqlite3.connect(cli.db)
    assert con.execute("SELECT machine, results FROM campaigns WHERE name='done'").fetchone() == before
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == runs
    con.close()
