"""Where runs go: the hosts a run spans and the platform a simulated run stands for.

description.py is the cluster description (a hosts file: `Cluster` of `Host`s, docs/clusters.md),
slurm.py the one made from the Slurm allocation the harness runs in (and its nodes' watch and
time limit), facts.py what each host says of itself (its cores, CPU, build), agent.py the
remote-shell agent that starts a command on a host through its start method, simulated.py the
SimGrid platforms (`Simulation`; their files in platforms/) that the smpirun launcher runs SMPI
builds on. Which description a run spans is the --hosts option's choice (commands/options.py).

Imported by the launchers, the clusters' starters and the systems' own processes (charm4py): it
imports nothing of taskbench but the base modules.
"""

from taskbench.hosts.description import HOSTS_VARIABLE, Cluster, Host, read_cluster

__all__ = ["HOSTS_VARIABLE", "Cluster", "Host", "read_cluster"]
