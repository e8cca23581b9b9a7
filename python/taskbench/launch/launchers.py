"""The launcher table: the registry entry's `launcher` key names a launcher, a module of this
package named for it (`dask` is dask.py), which has `command(system, flags, options)` (the
LaunchCommand: command line and environment) and `why_not_here(system)` (why it cannot start that
system on this machine, "" when it can), and ACROSS_HOSTS = True where it can spread a run over a
cluster description's hosts (--hosts). Adding a launcher is its module and its place in LAUNCHERS."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import (charmrun, dask, external, local, loopback, mpirun, parsl_pools, ray, smpirun, spark,
                              srun)
from taskbench.launch.common import LaunchOptions, LaunchCommand

# A launcher's name is its module's, where its code is.
LAUNCHERS = {module.__name__.rpartition(".")[2]: module
             for module in (local, mpirun, srun, dask, loopback, spark, external, parsl_pools, charmrun, ray, smpirun)}
MPI_LAUNCHERS = ("mpirun", "srun")
# The launchers that can spread a run over a cluster description's hosts (--hosts).
ACROSS_HOSTS = tuple(name for name, module in LAUNCHERS.items() if getattr(module, "ACROSS_HOSTS", False))


def why_not_here(system) -> str:
    """Why the system's launcher cannot start it on this machine; "" when it can."""
    module = LAUNCHERS.get(system.launcher)
    if module is None:
        return f"unknown launcher '{system.launcher}' (known: {', '.join(LAUNCHERS)})"
    return module.why_not_here(system)


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    # The engine that starts an MPI system's ranks is a property of the run (a laptop's mpirun,
    # a cluster's srun), not of the system: --launcher picks it. Other systems keep their own
    # launcher; under --launcher srun they start their processes on the allocation's hosts with
    # srun steps (the hosts' start method, hosts/slurm.py).
    if options.launcher not in (None, *MPI_LAUNCHERS):
        raise UserError(f"--launcher {options.launcher}: only mpirun or srun", EXIT_USAGE)
    is_mpi = system.launcher in MPI_LAUNCHERS
    if options.launcher == "mpirun" and not is_mpi:
        raise UserError(f"--launcher mpirun: only for MPI systems ('{system.name}' is launched by "
                        f"{system.launcher})", EXIT_USAGE)
    if options.launcher == "srun" and not is_mpi and options.cluster is None:
        raise UserError(f"--launcher srun: '{system.name}' is not an MPI system: it runs across a Slurm "
                        "allocation's hosts (run it inside salloc or sbatch), or on this machine without "
                        "--launcher", EXIT_USAGE)
    if options.simulation is not None and system.launcher != smpirun.LAUNCHER:
        raise UserError(f"--simulate: {system.name} runs on this machine's cores; a simulated platform runs the "
                        "MPI systems' SimGrid builds (`taskbench systems` lists them, launcher smpirun)", EXIT_USAGE)
    launcher = options.launcher if is_mpi and options.launcher else system.launcher
    if launcher not in LAUNCHERS:
        raise UserError(f"system '{system.name}': unknown launcher '{system.launcher}'", EXIT_USAGE)
    module = LAUNCHERS[launcher]
    if options.cluster is not None and system.not_across_hosts:
        raise UserError(f"--hosts: {system.name} cannot run across hosts here: {system.not_across_hosts}",
                        EXIT_USAGE)
    if options.cluster is not None and launcher not in ACROSS_HOSTS:
        raise UserError(f"--hosts: {system.name} is started by the {launcher} launcher, which runs on this "
                        f"machine only (across hosts: the {', '.join(ACROSS_HOSTS)} launchers)", EXIT_USAGE)
    return module.command(system, flags, options)
