"""The `charmrun` launcher (charm4py). On this machine alone: the loopback launcher's network
namespace (charmrun and its PEs listen on every interface whatever they are told). With
--hosts: charmrun on this machine, its PEs on the hosts (one per core of each, the hosts in
turn), started through each host's start method (hosts/agent.py as charmrun's ++remote-shell)."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import loopback
from taskbench.hosts.description import HOSTS_VARIABLE
from taskbench.launch.common import LaunchOptions, LaunchCommand, base_environment, merged_env, program

ACROSS_HOSTS = True

why_not_here = loopback.why_not_here


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    cluster = options.cluster
    if cluster is None:
        return loopback.command(system, flags, options)
    if options.threads_per_rank and options.threads_per_rank != 1:
        raise UserError(f"--threads-per-rank: {system.name}'s PEs run one task at a time", EXIT_USAGE)
    pes = options.ranks or system.ranks or cluster.cores
    set_env = base_environment(system, options)
    set_env[HOSTS_VARIABLE] = str(cluster.path)  # for the agent, which charmrun starts
    # -nodes: the core's local/nonlocal dependency estimate, as for the MPI systems.
    nodes = [] if "-nodes" in flags else ["-nodes", str(len(cluster))]
    argv = [*program(system), *flags, *nodes, "-hosts", str(cluster.path), "-worker", str(pes)]
    return LaunchCommand(argv, merged_env(set_env), set_env, pes, 1)
