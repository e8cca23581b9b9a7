"""mpirun launcher: Open MPI's `mpirun -np N --oversubscribe` or MPICH's `mpiexec -n N`.

The registry entry's `mpi` key ("openmpi", the default, or "mpich") picks the flavour, because
their flags for oversubscription and for exporting environment variables differ.

Both start the ranks on this host only, and run in a network namespace whose only interface
is loopback (loopback.py) where the harness can make one (as root): Open MPI 4.1's mpirun (its
out-of-band channel, bound to INADDR_ANY in its code) and ranks (the TCP BTL), MPICH 4.0's
Hydra (its control port) and ranks (UCX) listen beyond loopback whatever they are told
(`--mca oob_tcp_if_include lo --mca btl_tcp_if_include lo`, `-iface lo`: measured). The ranks
still meet through shared memory, and reach the harness's Unix socket (rank_watch.py) by its
file, which no network namespace hides. An entry whose `mpirun_args` name hosts runs outside.
"""

from __future__ import annotations

from taskbench.launch import loopback
from taskbench.launch.mpi_common import (EXPECT_RANKS_FLAG, LAUNCHER_NAMES, find_launcher, flavour,
                                         rank_layout, running_as_root)
from taskbench.launch.plan import (LaunchOptions, LaunchPlan, base_environment, merged_env, program,
                                   threads_flags)

# Open MPI's and Hydra's options that place ranks on other hosts.
HOST_OPTIONS = {"-H", "-host", "--host", "-hosts", "-f", "-hostfile", "--hostfile", "-machinefile",
                "--machinefile", "--default-hostfile"}



def why_not_here(system) -> str:
    if system.mpi not in (None, *LAUNCHER_NAMES):
        return f"unknown mpi '{system.mpi}' (known: {', '.join(LAUNCHER_NAMES)})"
    if find_launcher(system) is None:
        return f"no {flavour(system)} launcher found on PATH ({', '.join(LAUNCHER_NAMES[flavour(system)][:2])})"
    return ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    options = rank_layout(system, options)
    ranks, threads = options.ranks, options.threads_per_rank or 1
    set_env = base_environment(system, options)
    program_argv = [*program(system), *flags, *threads_flags(system, options),
                    EXPECT_RANKS_FLAG, str(ranks)]
    program_name = find_launcher(system) or ("mpiexec" if flavour(system) == "mpich" else "mpirun")
    if flavour(system) == "mpich":
        argv = [program_name, "-n", str(ranks)]
        if threads > 1:  # give each rank as many cores as threads, not one
            argv += ["-bind-to", f"core:{threads}"]
        for name, value in set_env.items():
            argv += ["-genv", name, value]
        # Each rank's wait status: its report of a dead rank names only a PID (diagnosis.py).
        argv += ["-print-all-exitcodes"]
    else:
        # Open MPI refuses more ranks than cores, and refuses root, unless told otherwise.
        argv = [program_name, "-np", str(ranks), "--oversubscribe"]
        if threads > 1:  # Open MPI binds each rank to one core unless told to map more
            argv += ["--map-by", f"slot:PE={threads}"]
        for name in set_env:
            argv += ["-x", name]  # remote ranks see only exported variables
        if running_as_root():
            set_env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            set_env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    own_args = [str(a) for a in system.extra.get("mpirun_args", [])]
    argv += own_args + program_argv
    if loopback.can_isolate() and not any(a.split("=")[0] in HOST_OPTIONS for a in own_args):
        argv = loopback.wrap(argv)
    return LaunchPlan(argv, merged_env(set_env), set_env, ranks, options.threads_per_rank)
