"""A launch across hosts that goes on after a rank printed the core's validation line (MPICH's
Hydra does) is ended after a grace, and reported as that failure; one that ends by itself, or
reaches its timeout, is left to the usual verdicts."""
from __future__ import annotations

import subprocess
import sys
import time

from taskbench.process import failed_rank_watch


def launch(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


HANGS_AFTER_FAILING = ("import sys, time; print('Running'); "
                       "print('taskbench: validation failed: graph 0, task (t=5, i=5): ...', file=sys.stderr, "
                       "flush=True); time.sleep(60)")


def test_a_launch_that_hangs_after_a_validation_failure_is_ended(monkeypatch):
    monkeypatch.setattr(failed_rank_watch, "GRACE_SECONDS", 0.3)
    proc = launch(HANGS_AFTER_FAILING)
    start = time.monotonic()
    out, err, verdict = failed_rank_watch.communicate(proc, 30, proc.kill)
    assert verdict == "validation" and time.monotonic() - start < 10
    assert out == "Running\n" and err.startswith("taskbench: validation failed: graph 0")
    assert proc.returncode is not None


def test_a_launch_that_ends_by_itself_is_not_touched(monkeypatch):
    monkeypatch.setattr(failed_rank_watch, "GRACE_SECONDS", 5.0)
    proc = launch("import sys; print('taskbench: validation failed: x', file=sys.stderr); sys.exit(3)")
    out, err, verdict = failed_rank_watch.communicate(proc, 30, proc.kill)
    assert (verdict, proc.returncode) == (None, 3) and "validation failed: x" in err


def test_the_timeout_ends_a_launch_that_never_fails():
    proc = launch("import time; time.sleep(60)")
    out, err, verdict = failed_rank_watch.communicate(proc, 0.3, proc.kill)
    assert verdict == "timeout" and proc.returncode is not None
