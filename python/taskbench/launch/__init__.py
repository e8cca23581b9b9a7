"""Launching and running: how a system's run is started, and the runner that executes it.

launchers.py holds the launcher table (LAUNCHERS, one module each: local, mpirun, srun, dask,
loopback, spark, external), which the registry entry's `launcher` key picks from; plan.py what
every launcher shares, cluster_launcher.py what the cluster launchers share. The rest runs a
plan: runner.py (one run, with a timeout, into a RunOutcome), the process ties and guard that
leave nothing behind (tied.py, guard.py, leftovers.py), the MPI rank watch (rank_watch.py,
diagnosis.py), and the local Dask and Spark clusters the cluster launchers start
(local_cluster.py, *_cluster*.py).

Systems are passed in as they are (any object with the registry entry's fields): nothing here
imports the registry.
"""

from taskbench.launch.launchers import LAUNCHERS, MPI_LAUNCHERS, plan, why_not_here
from taskbench.launch.plan import LaunchOptions, LaunchPlan

__all__ = ["LAUNCHERS", "MPI_LAUNCHERS", "LaunchOptions", "LaunchPlan", "plan", "why_not_here"]
