"""Which rank of a launch died, and how, from what the launcher printed.

A rank killed by a signal makes the launcher tear the job down and exit with a code of its own
(Open MPI 4.1: 128 + signal; Hydra: the signal number), which alone says neither the rank nor
the signal for certain. Each launcher names them in its own words:
  Open MPI  "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed)."
  Hydra     a banner with "PID 1234 RUNNING AT vm", then
            "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)": the signal is
            the failed rank's, but the PID is the lowest rank's that ended badly, and after its
            clean-up that may be another one. With -print-all-exitcodes (the harness passes it)
            it also prints "Exit codes: [vm] 0,9": one wait status per rank of that host, where
            the ranks its clean-up killed usually read 0
  Slurm     "srun: error: node1: task 1: Killed"
For Hydra the rank is the only one with a bad status when there is one; otherwise the rank that
ended first (process/rank_watch.py), which its clean-up can precede on a saturated machine (measured:
8 of 60 launches with two busy loops on the 2-core VM, none of 36 without them).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

_OPEN_MPI = re.compile(r"noticed that process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+)")
_HYDRA_PID = re.compile(r"PID (\d+) RUNNING AT (\S+)")
_HYDRA_SIGNAL = re.compile(r"TERMINATED WITH THE EXIT STRING: .*\(signal (\d+)\)")
_HYDRA_STATUSES = re.compile(r"Exit codes: ((?:\[\S+\] [\d,]+ ?)+)")
_SLURM = re.compile(r"srun: error: (\S+): tasks? (\d+)(?:[-,][\d,-]*)?: (.+)$", re.MULTILINE)
_LOST_DAEMON = re.compile(r"lost communication with a remote daemon\..*?Remote daemon: *\S+ on node (\S+)", re.DOTALL)
_AGENT_LOST = re.compile(r"^host_agent: (host .+)$", re.MULTILINE)  # hosts/agent.py's line


@dataclass
class RankDeath:
    signal: int
    rank: int | None = None
    pid: int | None = None
    host: str | None = None

    def describe(self) -> str:
        """'rank 1 killed by SIGKILL (pid 1234 on vm)'."""
        who = f"rank {self.rank}" if self.rank is not None else "a rank"
        where = []
        if self.pid:  # Open MPI 4.1 prints PID 0
            where.append(f"pid {self.pid}")
        if self.host:
            where.append(f"on {self.host}")
        return f"{who} killed by {signal_name(self.signal)}" + (f" ({' '.join(where)})" if where else "")


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _signal_by_description() -> dict[str, int]:
    """strsignal() texts ('Killed', 'Segmentation fault'), as Slurm prints them."""
    names = {}
    for sig in signal.Signals:
        text = signal.strsignal(sig)
        if text:
            names[text] = int(sig)
    return names


def _hydra_rank(text: str, first_to_end: tuple[int, int] | None) -> int | None:
    statuses = _HYDRA_STATUSES.search(text)
    hosts = re.findall(r"\[\S+\] ([\d,]+)", statuses.group(1)) if statuses else []
    if len(hosts) == 1:  # one host: the statuses are in rank order
        bad = [rank for rank, status in enumerate(hosts[0].split(",")) if status and int(status) != 0]
        if len(bad) == 1:
            return bad[0]
    return first_to_end[0] if first_to_end is not None else None


def lost_host(text: str, cluster=None) -> str | None:
    """Why a run across hosts failed when one of its hosts died (its processes killed, its link
    down), naming the host, or None. Two witnesses: the agent that started the launcher's daemon
    there (hosts/agent.py: its start command was killed, or ssh lost the host), and Open MPI 4.1's
    report once its daemons were up ("ORTE has lost communication with a remote daemon. ...
    Remote daemon: [[11707,0],2] on node 198.18.0.3"), which names the host as the launcher knows
    it: `cluster` (hosts/description.py) gives its name."""
    agent = _AGENT_LOST.search(text)
    if agent:
        return agent[1]
    m = _LOST_DAEMON.search(text)
    if not m:
        return None
    host = cluster.find(m[1]) if cluster is not None else None
    named = f"{host.name} ({host.address})" if host is not None and host.name != m[1] else m[1]
    return f"host {named} stopped answering: the launcher lost its daemon there (the host died, its " \
           "processes were killed, or its network failed)"


def rank_death(text: str, first_to_end: tuple[int, int] | None = None,
               pids: dict[int, int] | None = None) -> RankDeath | None:
    """The rank the launcher reports as killed by a signal, or None. `first_to_end`: (rank, pid)
    of the local rank that ended first, when known; `pids`: rank -> pid of the local ranks."""
    m = _OPEN_MPI.search(text)
    if m:
        return RankDeath(int(m.group(4)), int(m.group(1)), int(m.group(2)), m.group(3))
    pid, sig = _HYDRA_PID.search(text), _HYDRA_SIGNAL.search(text)
    if pid and sig:
        rank = _hydra_rank(text, first_to_end)
        if rank is None:
            return RankDeath(int(sig.group(1)), None, int(pid.group(1)), pid.group(2))
        return RankDeath(int(sig.group(1)), rank, (pids or {}).get(rank), pid.group(2))
    descriptions = _signal_by_description()
    for m in _SLURM.finditer(text):
        what = m.group(3).strip()
        if what in descriptions:
            return RankDeath(descriptions[what], int(m.group(2)), None, m.group(1))
    return None
