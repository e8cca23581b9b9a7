"""No benchmark process outlives its run or the harness: children tied to the harness
(PR_SET_PDEATHSIG), and every process of a launch found by its marker in /proc."""

import os
import subprocess
import sys
import textwrap
import time

import pytest

from harness_helpers import REPO
from taskbench.process import leftovers, tied

PROBE = "TASKBENCH_TEST_ORPHAN_PROBE"


def _spawn_parent(marker: str, start_new_session: bool) -> subprocess.Popen:
    """A stand-in harness that starts `sleep 60` through tied.popen, says when it did, then
    waits to be killed."""
    code = textwrap.dedent(f"""
        import signal, subprocess, sys, time
        sys.path.insert(0, {str(REPO / 'python')!r})
        from taskbench.process import tied
        tied.popen(["sleep", "60"], signal.SIGKILL, start_new_session={start_new_session})
        print("started", flush=True)
        time.sleep(60)
    """)
    env = dict(os.environ, **{PROBE: marker})
    parent = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    assert parent.stdout.readline().strip() == "started"
    return parent


@pytest.mark.skipif(not tied.supported(), reason="PR_SET_PDEATHSIG is Linux only")
@pytest.mark.parametrize("start_new_session", [True, False])
def test_a_tied_child_dies_with_its_sigkilled_parent(start_new_session):
    marker = leftovers.new_marker()
    parent = _spawn_parent(marker, start_new_session)
    try:
        children = [p for p in leftovers.processes_with(PROBE, marker) if p != parent.pid]
        assert len(children) == 1  # the sleep
        parent.kill()
        parent.wait()
        assert leftovers.wait_until_gone(PROBE, marker, 2.0) == [], "the child outlived its parent"
    finally:
        leftovers.kill_all(PROBE, marker)


def test_an_untied_child_would_have_survived():
    """What the tie fixes: the same start without it leaves the child running."""
    marker = leftovers.new_marker()
    code = ("import subprocess; subprocess.Popen(['sleep', '60'], start_new_session=True, "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print('started', flush=True)")
    env = dict(os.environ, **{PROBE: marker})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "started"
    try:
        time.sleep(0.2)
        assert len(leftovers.processes_with(PROBE, marker)) == 1
    finally:
        assert leftovers.kill_all(PROBE, marker) == 1


def test_leftovers_are_found_wherever_they_went():
    """A grandchild in a session of its own, orphaned at once: no process group reaches it, the
    marker does."""
    marker = leftovers.new_marker()
    env = dict(os.environ, **{PROBE: marker})
    code = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; "
            "time.sleep(60)'], start_new_session=True)")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    (pid,) = leftovers.processes_with(PROBE, marker)
    assert "python" in leftovers.describe(pid)
    assert leftovers.kill_all(PROBE, marker) == 1
    assert leftovers.processes_with(PROBE, marker) == []



def test_the_guard_kills_what_the_harness_started_when_the_harness_dies():
    """A process in a session of its own that no tie reaches (a rank behind an mpirun): the
    guard ends it once the harness is SIGKILLed, then ends itself."""
    marker = leftovers.new_marker()
    code = textwrap.dedent(f"""
        import os, subprocess, sys
        sys.path.insert(0, {str(REPO / 'python')!r})
        from taskbench.process import guard
        mark = guard.harness_marker()
        env = dict(os.environ, **{{guard.HARNESS_MARK_VARIABLE: mark}})
        subprocess.Popen(["sleep", "60"], env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(guard._guard.pid, flush=True)
        sys.stdin.read()
    """)
    env = dict(os.environ, **{PROBE: marker})
    harness = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    guard_pid = int(harness.stdout.readline())
    try:
        (sleeper,) = [p for p in leftovers.processes_with(PROBE, marker) if p != harness.pid]
        time.sleep(0.2)
        assert os.path.exists(f"/proc/{sleeper}"), "the sleeper should live while the harness does"
        harness.kill()
        harness.wait()
        assert leftovers.wait_until_gone(PROBE, marker, 1.0) == []
        deadline = time.monotonic() + 2
        while os.path.exists(f"/proc/{guard_pid}") and time.monotonic() < deadline:
            time.sleep(0.01)
        state = open(f"/proc/{guard_pid}/stat").read().split()[2] if os.path.exists(f"/proc/{guard_pid}") else "gone"
        assert state in ("gone", "Z"), "the guard outlived its work"
    finally:
        leftovers.kill_all(PROBE, marker)


@pytest.mark.parametrize("keep", [True, False])
def test_a_process_that_sets_its_title_keeps_its_marker_only_with_keep_environ(keep):
    """dask's and Parsl's processes call setproctitle, which writes the title over what
    /proc/PID/environ shows: the marker is lost unless the launch's environment says not to."""
    setproctitle = pytest.importorskip("setproctitle")
    marker = leftovers.new_marker()
    env = dict({k: v for k, v in os.environ.items() if k != "SPT_NOENV"}, **{PROBE: marker})
    if keep:
        env.update(leftovers.KEEP_ENVIRON)
    code = "import setproctitle, sys, time; setproctitle.setproctitle('x' * 300); print('set', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "set"
        assert (leftovers.processes_with(PROBE, marker) == [child.pid]) is keep, setproctitle.__version__
    finally:
        child.kill()
        child.wait()


def _fake_process(root, pid: int, state: str, flags: int, environ: bytes):
    entry = root / str(pid)
    entry.mkdir()
    (entry / "stat").write_text(f"{pid} (a name) {state} 1 {pid} {pid} 0 -1 {flags} 0 0 0 0\n")
    (entry / "environ").write_bytes(environ)
    return entry


def test_a_process_caught_in_the_middle_of_its_exec_is_found(tmp_path, monkeypatch):
    """Between closing its close-on-exec pipes (Popen has returned) and laying out its new
    environment, a process shows an empty environ: the search waits for it (the guard's test
    once missed a just-started sleep this way on a busy CI machine)."""
    import threading
    monkeypatch.setattr(leftovers, "_proc_root", lambda: tmp_path)
    execing = _fake_process(tmp_path, 4242, "R", 0, b"")
    _fake_process(tmp_path, 2, "S", 0x00200000, b"")  # a kernel thread: never waited for
    _fake_process(tmp_path, 4343, "Z", 0, b"")  # a zombie: neither
    needle = b"PATH=/bin\0" + f"{PROBE}=m".encode() + b"\0"
    later = threading.Timer(0.01, lambda: (execing / "environ").write_bytes(needle))
    later.start()
    try:
        assert leftovers.processes_with(PROBE, "m") == [4242]
    finally:
        later.join()
    (execing / "environ").write_bytes(b"")
    start = time.monotonic()
    assert leftovers.processes_with(PROBE, "m") == []  # a process that never gets one: given up
    assert time.monotonic() - start < 1.0
