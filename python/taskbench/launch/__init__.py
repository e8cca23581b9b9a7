"""Launching and running: how a system's run is started, and the runner that executes it.

Launchers, one module each, listed in LAUNCHERS: each has `command(system, flags, options)`,
which returns a LaunchPlan (the command line and environment), and `why_not_here(system)`,
which says why it cannot start that system on this machine ("" when it can). The registry
entry's `launcher` key picks one. The rest of the package runs a plan: runner.py (one run,
with a timeout, into a RunOutcome), the process ties and guard that leave nothing behind
(tied.py, guard.py, leftovers.py), the MPI rank watch (rank_watch.py, diagnosis.py), and the
local Dask and Spark clusters the `dask` and `spark` launchers start (*_cluster*.py).

Systems are passed in as they are (any object with the registry entry's fields): nothing here
imports the registry.
"""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch import dask, external, local, loopback, mpirun, spark, srun
from taskbench.launch.plan import LaunchOptions, LaunchPlan

__all__ = ["LAUNCHERS", "MPI_LAUNCHERS", "LaunchOptions", "LaunchPlan", "plan", "why_not_here"]

LAUNCHERS = {"local": local, "mpirun": mpirun, "srun": srun, "dask": dask, "loopback": loopback,
             "spark": spark, "external": external}
MPI_LAUNCHERS = ("mpirun", "srun")


def why_not_here(system) -> str:
    """Why the system's launcher cannot start it on this machine; "" when it can."""
    module = LAUNCHERS.get(system.launcher)
    if module is None:
        return f"unknown launcher '{system.launcher}' (known: {', '.join(LAUNCHERS)})"
    return module.why_not_here(system)


def plan(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    # The engine that starts an MPI system's ranks is a property of the run (a laptop's mpirun,
    # a cluster's srun), not of the system: --launcher picks it.
    launcher = options.launcher or system.launcher
    if options.launcher and (system.launcher not in MPI_LAUNCHERS or launcher not in MPI_LAUNCHERS):
        raise UserError(f"--launcher {options.launcher}: only mpirun or srun, and only for MPI systems "
                        f"('{system.name}' is launched by {system.launcher})", EXIT_USAGE)
    if launcher not in LAUNCHERS:
        raise UserError(f"system '{system.name}': unknown launcher '{system.launcher}'", EXIT_USAGE)
    return LAUNCHERS[launcher].command(system, flags, options)
