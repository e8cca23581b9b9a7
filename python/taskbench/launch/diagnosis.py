"""Which rank of a launch died, and how, from what the launcher printed.

A rank killed by a signal makes the launcher tear the job down and exit with a code of its own
(Open MPI 4.1: 128 + signal; Hydra: the signal number), which alone says neither the rank nor
the signal for certain. Each launcher names them in its own words:
  Open MPI  "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed)."
  Hydra     a banner with "PID 1234 RUNNING AT vm", then
            "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)": a PID, no rank
  Slurm     "srun: error: node1: task 1: Killed"
Hydra's PID is turned into a rank with the files the core writes when TASKBENCH_RANK_PIDS names
a folder (each MPI process creates `rank-R.pid-P` there once it knows its rank; the harness
sets it for every MPI launch).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path

RANK_PIDS_VARIABLE = "TASKBENCH_RANK_PIDS"

_OPEN_MPI = re.compile(r"noticed that process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+)")
_HYDRA_PID = re.compile(r"PID (\d+) RUNNING AT (\S+)")
_HYDRA_SIGNAL = re.compile(r"TERMINATED WITH THE EXIT STRING: .*\(signal (\d+)\)")
_SLURM = re.compile(r"srun: error: (\S+): tasks? (\d+)(?:[-,][\d,-]*)?: (.+)$", re.MULTILINE)
_RANK_PID_FILE = re.compile(r"rank-(\d+)\.pid-(\d+)$")


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


def read_rank_pids(folder: Path | None) -> dict[int, int]:
    """pid -> rank, from the files the ranks left in `folder`."""
    found: dict[int, int] = {}
    if folder is None or not folder.is_dir():
        return found
    for entry in folder.iterdir():
        m = _RANK_PID_FILE.match(entry.name)
        if m:
            found[int(m.group(2))] = int(m.group(1))
    return found


def rank_death(text: str, rank_of_pid: dict[int, int] | None = None) -> RankDeath | None:
    """The first rank the launcher reports as killed by a signal, or None."""
    m = _OPEN_MPI.search(text)
    if m:
        return RankDeath(int(m.group(4)), int(m.group(1)), int(m.group(2)), m.group(3))
    pid, sig = _HYDRA_PID.search(text), _HYDRA_SIGNAL.search(text)
    if pid and sig:
        number = int(pid.group(1))
        return RankDeath(int(sig.group(1)), (rank_of_pid or {}).get(number), number, pid.group(2))
    descriptions = _signal_by_description()
    for m in _SLURM.finditer(text):
        what = m.group(3).strip()
        if what in descriptions:
            return RankDeath(descriptions[what], int(m.group(2)), None, m.group(1))
    return None
