"""Launching and running: how a system's run is started, and the runner that executes it.

launchers.py holds the launcher table (LAUNCHERS, one module each: local, mpirun, srun, loopback,
external, charmrun, smpirun (SimGrid's simulated MPI), and the cluster launchers dask_cluster, spark_cluster, ray_cluster,
parsl_pools), which the registry entry's `launcher` key picks from; plan.py what every launcher
shares, cluster_launcher.py what the cluster launchers are built on (their starter, the
cluster's processes, the run attached to it; starter.py runs a starter). The hosts a run spans:
hosts.py (the choice), hosts_file.py (the cluster description), slurm_hosts.py (an allocation's).
The rest runs a plan: runner.py (one run, with a timeout, into a RunOutcome), the process ties
and guard that leave nothing behind (tied.py, guard.py, leftovers.py), and the MPI rank watch
(rank_watch.py, diagnosis.py).

Systems are passed in as they are (any object with the registry entry's fields): nothing here
imports the registry.
"""

from taskbench.launch.launchers import LAUNCHERS, MPI_LAUNCHERS, plan, why_not_here
from taskbench.launch.plan import LaunchOptions, LaunchPlan

__all__ = ["LAUNCHERS", "MPI_LAUNCHERS", "LaunchOptions", "LaunchPlan", "plan", "why_not_here"]
