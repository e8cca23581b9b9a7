"""`taskbench hosts`: checks every host of a cluster description (docs/clusters.md) before a
run relies on it: reachable through its start method, the build at the same path, its cores,
and which systems can run across the hosts. One line per host, one line per problem."""

from __future__ import annotations

import shlex
import subprocess

from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, UserError
from taskbench.launch.launchers import ACROSS_HOSTS
from taskbench.launch.hosts import cluster_from

TIMEOUT = 20.0  # seconds a host may take to answer (an ssh connection, a busy Slurm node)


def add_parser(subparsers, common):
    p = subparsers.add_parser("hosts", parents=[common], help="check the hosts of a cluster description")
    p.add_argument("--hosts", metavar="FILE", help="the cluster description (default: $TASKBENCH_HOSTS)")
    return p


def _probe(host, binaries: list) -> tuple[dict, str]:
    """What the host says of itself, and "" or the problem that stops a run there."""
    checks = "".join(f"; test -x {shlex.quote(str(b))} || echo missing:{shlex.quote(str(b))}" for b in binaries)
    script = f"hostname; nproc{checks}"
    try:
        done = subprocess.run(host.command(["sh", "-c", script]), capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        return {}, f"its start command cannot run here ({e.filename} not found)"
    except subprocess.TimeoutExpired:
        return {}, f"no answer within {TIMEOUT:.0f} s through `{shlex.join(host.start)}`"
    lines = done.stdout.split()
    if done.returncode not in (0, 1) or len(lines) < 2:
        said = (done.stderr.strip().splitlines() or ["nothing"])[-1]
        return {}, f"unreachable through `{shlex.join(host.start)}` (exit {done.returncode}: {said})"
    facts = {"hostname": lines[0], "nproc": int(lines[1]) if lines[1].isdigit() else None}
    missing = [line.removeprefix("missing:") for line in lines[2:] if line.startswith("missing:")]
    if missing:
        return facts, (f"{missing[0]} missing there{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}: "
                       "the build must be at the same path on every host")
    return facts, ""


def main(args, ctx) -> int:
    cluster = cluster_from(args.hosts)
    if cluster is None:
        raise UserError("taskbench hosts: no cluster description: give --hosts FILE or set TASKBENCH_HOSTS "
                        "(docs/clusters.md)", EXIT_USAGE)
    # Open MPI's builds only: Hydra (MPICH) is not driven across hosts yet (launch/mpirun.py).
    able = [s for s in ctx.registry if s.available and s.launcher in ACROSS_HOSTS and (s.mpi or "openmpi") == "openmpi"]
    if not able:
        raise UserError("taskbench hosts: no system that runs across hosts is built here (the Open MPI "
                        "systems: `taskbench systems`)", EXIT_ENVIRONMENT)
    rows, problems = [], []
    for host in cluster.hosts:
        facts, problem = _probe(host, sorted({s.binary_path for s in able}))
        nproc = facts.get("nproc")
        rows.append([host.name, host.address, host.cores, nproc if nproc is not None else "?",
                     facts.get("hostname", "?"), "no" if problem else "yes"])
        if problem:
            problems.append(f"{host.name}: {problem}")
        elif nproc is not None and nproc < host.cores:
            problems.append(f"{host.name}: {host.cores} cores described, but it runs this build on {nproc}")
    ctx.console.table(f"hosts of {cluster.path} ({len(cluster)} hosts, {cluster.cores} cores)",
                      ["host", "address", "cores", "cores seen", "hostname", "ready"], rows)
    ctx.console.line(f"systems that run across these hosts: {', '.join(s.name for s in able)}")
    for problem in problems:
        ctx.console.warn(problem)
    return EXIT_ENVIRONMENT if problems else EXIT_OK
