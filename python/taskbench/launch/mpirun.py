"""mpirun launcher: Open MPI's `mpirun -np N --oversubscribe` or MPICH's `mpiexec -n N`.

The registry entry's `mpi` key ("openmpi", the default, or "mpich") picks the flavour, because
their flags for oversubscription and for exporting environment variables differ.

Both start the ranks on this host only, and run in a network namespace whose only interface
is loopback (loopback.py) where the harness can make one (as root): Open MPI 4.1's mpirun (its
out-of-band channel, bound to INADDR_ANY in its code) and ranks (the TCP BTL), MPICH 4.0's
Hydra (its control port) and ranks (UCX) listen beyond loopback whatever they are told
(`--mca oob_tcp_if_include lo --mca btl_tcp_if_include lo`, `-iface lo`: measured). The ranks
still meet through shared memory, and reach the harness's Unix socket (process/rank_watch.py) by its
file, which no network namespace hides. An entry whose `mpirun_args` name hosts runs outside.

With a cluster description (--hosts, hosts/description.py), Open MPI's mpirun places the ranks on its hosts
(one per core of each, a hybrid system's one per host), a host after another, starts its
daemons there through the hosts' own start method (hosts/agent.py as its remote-shell agent);
its daemons and ranks talk over the hosts' addresses only, and the core is told the number of
hosts (-nodes). MPICH's Hydra does the same with its hosts list (`-hosts ADDRESS:CORES,...`:
ranks fill a host, then the next) and build/libexec/taskbench/host_agent as its ssh
(-launcher-exec takes one executable); its proxies connect back to the launching host, named by
its address where the harness runs on one of the hosts (-localhost: the test hosts' names
resolve nowhere).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch import loopback
from taskbench.hosts import slurm
from taskbench.hosts.description import HOSTS_VARIABLE, Cluster
from taskbench.launch.mpi_common import (EXPECT_RANKS_FLAG, LAUNCHER_NAMES, cluster_layout, find_launcher,
                                         flavour, rank_layout, running_as_root)
from taskbench.launch.common import (LaunchOptions, LaunchCommand, base_environment, helper_path, merged_env,
                                   program, threads_flags)
from taskbench.provenance import available_cores

ACROSS_HOSTS = True  # --hosts: see above
HYDRA_AGENT = "host_agent"  # among the build's helpers (common.helper_path)

# Open MPI's and Hydra's options that place ranks on other hosts.
HOST_OPTIONS = {"-H", "-host", "--host", "-hosts", "-f", "-hostfile", "--hostfile", "-machinefile",
                "--machinefile", "--default-hostfile"}



def why_not_here(system) -> str:
    if system.mpi not in (None, *LAUNCHER_NAMES):
        return f"unknown mpi '{system.mpi}' (known: {', '.join(LAUNCHER_NAMES)})"
    if find_launcher(system) is None:
        return f"no {flavour(system)} launcher found on PATH ({', '.join(LAUNCHER_NAMES[flavour(system)][:2])})"
    return ""


def hosts_network(cluster: Cluster) -> str | None:
    """The smallest network holding every host's address, or None where one is not an IP address.
    Open MPI's interface selection takes networks, and needs one that holds its peers: with each
    host's own address alone (/32) its TCP transport refused the other hosts' connections
    ("server accept cannot find guid", measured on the test cluster)."""
    try:
        addresses = [ipaddress.ip_address(h.address) for h in cluster.hosts]
    except ValueError:
        return None
    if len({a.version for a in addresses}) > 1:
        return None
    network = ipaddress.ip_network(addresses[0])
    while not all(a in network for a in addresses):
        network = network.supernet()
    return str(network)


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity), in order."""
    return sorted(os.sched_getaffinity(0))


def across_hosts(cluster: Cluster, threads: int) -> list[str]:
    """Open MPI's options that place the ranks on the cluster's hosts, in turn, and keep its
    daemons' and ranks' traffic on the hosts' network."""
    argv = ["--host", ",".join(f"{h.address}:{h.cores}" for h in cluster.hosts),
            "--map-by", f"node:PE={threads}" if threads > 1 else "node",
            "--mca", "plm_rsh_agent", f"{sys.executable} -m taskbench.hosts.agent"]
    if slurm.is_allocation(cluster):
        # Inside an allocation Open MPI takes Slurm's own node list and starts its daemons with
        # srun, over --host and the agent ("All nodes which are allocated for this job are
        # already filled", measured): these hosts and the agent are the run's.
        argv += ["--mca", "ras", "^slurm", "--mca", "plm", "rsh"]
    network = hosts_network(cluster)
    if network is not None:
        argv += ["--mca", "oob_tcp_if_include", network, "--mca", "btl_tcp_if_include", network]
        # Its ranks bind every interface whatever they are told: not IPv6's too, for IPv4 hosts.
        if ipaddress.ip_network(network).version == 4:
            argv += ["--mca", "btl_tcp_disable_family", "6"]
    return argv


def hydra_across_hosts(system, cluster: Cluster) -> list[str]:
    """MPICH's Hydra options that place the ranks on the cluster's hosts and start its proxies
    there through the description's agent."""
    agent = helper_path(system, HYDRA_AGENT)
    if not agent.is_file():
        raise UserError(f"--hosts: {agent} missing (the build writes it with the Python systems): MPICH's "
                        "Hydra starts its proxies on the hosts through it", EXIT_ENVIRONMENT)
    argv = ["-hosts", ",".join(f"{h.address}:{h.cores}" for h in cluster.hosts),
            "-launcher", "ssh", "-launcher-exec", str(agent)]
    here = cluster.find(socket.gethostname())
    return argv + (["-localhost", here.address] if here is not None else [])


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    cluster = options.cluster
    if cluster is not None:
        options = cluster_layout(system, options)
    options = rank_layout(system, options)
    ranks, threads = options.ranks, options.threads_per_rank or 1
    set_env = base_environment(system, options)
    program_argv = [*program(system), *flags, *threads_flags(system, options),
                    EXPECT_RANKS_FLAG, str(ranks)]
    if cluster is not None and "-nodes" not in flags:
        program_argv += ["-nodes", str(len(cluster))]
    program_name = find_launcher(system) or ("mpiexec" if flavour(system) == "mpich" else "mpirun")
    if flavour(system) == "mpich":
        argv = [program_name, "-n", str(ranks)]
        if cluster is not None:
            argv += hydra_across_hosts(system, cluster)
            set_env[HOSTS_VARIABLE] = str(cluster.path)  # for the agent, which Hydra starts
        if threads > 1:  # give each rank as many cores as threads, not one
            argv += ["-bind-to", f"core:{threads}"]
        elif cluster is None and ranks <= available_cores():
            # The paper's --cpu_bind cores (Hydra binds nothing by default): rank k on the k-th
            # CPU this process may use, so that a run confined to some CPUs stays on them.
            argv += ["-bind-to", "user:" + ",".join(map(str, allowed_cpus()))]
        for name, value in set_env.items():
            argv += ["-genv", name, value]
        # Each rank's wait status: its report of a dead rank names only a PID (diagnosis.py).
        argv += ["-print-all-exitcodes"]
    else:
        # Open MPI refuses more ranks than cores, and refuses root, unless told otherwise.
        argv = [program_name, "-np", str(ranks), "--oversubscribe"]
        if cluster is not None:
            argv += across_hosts(cluster, threads)
            set_env[HOSTS_VARIABLE] = str(cluster.path)  # for the agent, which mpirun starts
        elif threads > 1:  # Open MPI binds each rank to one core unless told to map more
            argv += ["--map-by", f"slot:PE={threads}"]
        elif ranks <= available_cores():
            # A rank per core, as the paper's --cpu_bind cores: Open MPI binds to cores by itself
            # only up to 2 ranks (to sockets beyond), and to the machine's first cores even where
            # this process may not run: rank k on the k-th CPU this process may use.
            argv += ["--cpu-list", ",".join(map(str, allowed_cpus())), "--bind-to", "cpu-list:ordered"]
        for name in set_env:
            argv += ["-x", name]  # remote ranks see only exported variables
        if running_as_root():
            set_env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            set_env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    own_args = [str(a) for a in system.extra.get("mpirun_args", [])]
    argv += own_args + program_argv
    if cluster is None and loopback.can_isolate() and not any(a.split("=")[0] in HOST_OPTIONS for a in own_args):
        argv = loopback.wrap(argv)
    return LaunchCommand(argv, merged_env(set_env), set_env, ranks, options.threads_per_rank)
