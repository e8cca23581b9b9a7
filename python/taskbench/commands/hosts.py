"""`taskbench hosts`: checks every host of a cluster description (docs/clusters.md) before a
run relies on it: reachable through its start method, the build at the same path, its cores,
and which systems can run across the hosts. One line per host, one line per problem."""

from __future__ import annotations

from taskbench import units
from taskbench.commands.options import cluster_from
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, UserError
from taskbench.hosts.facts import probe
from taskbench.launch.launchers import ACROSS_HOSTS


def add_parser(subparsers, common):
    p = subparsers.add_parser("hosts", parents=[common], help="check the hosts of a cluster description")
    p.add_argument("--hosts", metavar="FILE", help="the cluster description, or `slurm`: the allocation's nodes "
                   "(default: $TASKBENCH_HOSTS, else the Slurm allocation it runs in)")
    return p


def main(args, ctx) -> int:
    cluster = cluster_from(args.hosts, allocation_by_default=True)
    if cluster is None:
        raise UserError("hosts: no cluster: give --hosts FILE, or `slurm` in an allocation (docs/clusters.md)",
                        EXIT_USAGE)
    able = [s for s in ctx.registry if s.available and s.launcher in ACROSS_HOSTS]
    if not able:
        raise UserError("hosts: no system that runs across hosts is built here (`taskbench systems`; "
                        "docs/clusters.md)", EXIT_ENVIRONMENT)
    rows, problems = [], []
    for host in cluster.hosts:
        facts, problem = probe(host, tuple(sorted({s.binary_path for s in able})))
        nproc = facts.get("nproc")
        rows.append([host.name, host.address, host.cores, nproc if nproc is not None else "?",
                     facts.get("hostname", "?"), facts.get("cpu_model", "?"), "no" if problem else "yes"])
        if problem:
            problems.append(f"{host.name}: {problem}")
        elif nproc is not None and nproc < host.cores:
            problems.append(f"{host.name}: {host.cores} cores described, but it runs this build on {nproc}")
    ctx.console.table(f"hosts of {cluster.path} ({units.count(len(cluster), 'host')}, "
                      f"{units.count(cluster.cores, 'core')})",
                      ["host", "address", "cores", "cores seen", "hostname", "CPU", "ready"], rows)
    ctx.console.line(f"systems that run across these hosts: {', '.join(s.name for s in able)}")
    for problem in problems:
        ctx.console.warn(problem)
    return EXIT_ENVIRONMENT if problems else EXIT_OK
