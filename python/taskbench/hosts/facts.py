"""What each host of a cluster description says of itself (its host name, the cores it runs
this build on, its CPU), asked through its own start method: `taskbench hosts` shows it, and
every run across the hosts keeps it as provenance (a run is traced to the CPUs it ran on)."""

from __future__ import annotations

import functools
import shlex
import subprocess

from taskbench.hosts.description import Cluster, Host

TIMEOUT = 20.0  # seconds a host may take to answer (an ssh connection, a busy Slurm node)
# One line each: the host name, the cores this process may use, the CPU model (or "?").
_FACTS = ("hostname; nproc; (grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') "
          "| grep . || echo '?'")


def probe(host: Host, binaries: tuple = ()) -> tuple[dict, str]:
    """What the host says of itself, and "" or the problem that stops a run there (unreachable,
    or one of `binaries` missing: the build must be at the same path on every host)."""
    checks = "".join(f"; test -x {shlex.quote(str(b))} || echo missing:{shlex.quote(str(b))}" for b in binaries)
    try:
        done = subprocess.run(host.command(["sh", "-c", _FACTS + checks]), capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        return {}, f"its start command cannot run here ({e.filename} not found)"
    except subprocess.TimeoutExpired:
        return {}, f"no answer within {TIMEOUT:.0f} s through `{shlex.join(host.start)}`"
    lines = done.stdout.splitlines()
    if done.returncode not in (0, 1) or len(lines) < 3:
        said = (done.stderr.strip().splitlines() or ["nothing"])[-1]
        return {}, f"unreachable through `{shlex.join(host.start)}` (exit {done.returncode}: {said})"
    facts = {"hostname": lines[0].strip(), "nproc": int(lines[1]) if lines[1].strip().isdigit() else None,
             "cpu_model": lines[2].strip()}
    missing = [line.removeprefix("missing:") for line in lines[3:] if line.startswith("missing:")]
    if missing:
        return facts, (f"{missing[0]} missing there{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}: "
                       "the build must be at the same path on every host")
    return facts, ""


@functools.lru_cache(maxsize=8)
def described(cluster: Cluster) -> tuple[dict, ...]:
    """Each host as the description gives it and as it answers (asked once per harness process:
    a sweep's hundreds of runs share the answer); an unreachable host's facts are absent."""
    return tuple({"name": h.name, "address": h.address, "cores": h.cores, **probe(h)[0]} for h in cluster.hosts)
