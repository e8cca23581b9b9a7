"""Provenance collected by the harness itself: machine, git revision, relevant environment.

The system's JSON report carries its own view (CPU model, compiler, build flags); this adds what
only the harness knows, so a stored run can be traced back even when the binary gave no report.
"""

from __future__ import annotations

import functools
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

from taskbench import __version__

# Variables that change what a run measures; everything else in the environment is noise.
RELEVANT_ENV_PREFIXES = ("OMP_", "GOMP_", "KMP_", "TASKBENCH_", "OMPI_MCA_", "I_MPI_", "MPICH_",
                         "SLURM_NTASKS", "SLURM_CPUS", "SLURM_JOB_NUM_NODES", "OPENBLAS_",
                         "MKL_NUM_THREADS")


def relevant_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(env.items()) if k.startswith(RELEVANT_ENV_PREFIXES)}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def available_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@functools.lru_cache(maxsize=1)
def machine() -> dict:
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "available_cpus": available_cores(),
        "memory_bytes": _memory_bytes(),
        "kernel": platform.release(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def machine_id(info: dict | None = None) -> str:
    """Runs from different machines must never share a peak: this key tells them apart."""
    info = info or machine()
    return f"{info['hostname']}|{info['cpu_model']}|{info['available_cpus']}"


def cluster_id(hosts: list[dict] | tuple[dict, ...]) -> str:
    """The machine key of runs across a cluster description's hosts (hosts/facts.py's described): a
    peak measured with every one of these hosts busy is theirs alone, never this machine's."""
    return "hosts:" + ",".join(f"{h['name']}|{h.get('cpu_model', '?')}|{h['cores']}" for h in hosts)


def cpu_busy_seconds() -> float | None:
    """CPU seconds all processes have used since boot (every core), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait;
    # steal counts as busy: the hypervisor gave our core to someone else.
    busy = sum(fields[:8]) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load_average() -> list[float] | None:
    try:
        return list(os.getloadavg())
    except OSError:
        return None


@functools.lru_cache(maxsize=4)
def git_revision(root: Path | None) -> str | None:
    if root is None or not (root / ".git").exists():
        return None
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return rev + ("-dirty" if dirty else "")


def harness() -> dict:
    return {"version": __version__, "python": sys.version.split()[0], "argv": sys.argv[1:]}
