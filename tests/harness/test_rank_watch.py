"""The rank that ended first is known from the order in which the ranks' connections closed
(taskbench.process.rank_watch), whatever the launcher says."""

import os
import signal
import subprocess
import sys
import time

from taskbench.process.rank_watch import RankWatch

# A stand-in rank: connects as the core does, says hello, then waits to be killed.
RANK = """
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(f"rank {sys.argv[2]} pid {os.getpid()}\\n".encode())
print("connected", flush=True)
time.sleep(60)
"""


def start_rank(watch, rank):
    proc = subprocess.Popen([sys.executable, "-c", RANK, str(watch.path), str(rank)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "connected"
    return proc


def test_the_first_rank_to_die_is_named(tmp_path):
    watch = RankWatch(tmp_path)
    watch.start()
    try:
        ranks = [start_rank(watch, r) for r in range(3)]
        ranks[2].send_signal(signal.SIGKILL)
        ranks[2].wait()
        time.sleep(0.1)
        for proc in ranks[:2]:
            proc.kill()
            proc.wait()
        assert watch.stop() == (2, ranks[2].pid)
        assert watch.ranks == {p.pid: r for r, p in enumerate(ranks)}
    finally:
        watch.close()
    assert not os.path.exists(watch.path)


def test_a_tie_names_nobody(tmp_path):
    """Closings seen in one wake-up cannot be ordered: no rank is named rather than a wrong one."""
    watch = RankWatch(tmp_path)
    try:
        watch.endings = [[(0, 100), (1, 101)], [(2, 102)]]
        assert watch.first_to_end() is None
        watch.endings = [[(1, 101)], [(0, 100), (2, 102)]]
        assert watch.first_to_end() == (1, 101)
    finally:
        watch.close()


def test_nothing_connects_nothing_named(tmp_path):
    watch = RankWatch(tmp_path)
    watch.start()
    assert watch.stop() is None
    watch.close()
