"""Launching and running: how a system's run is started, and the runner that executes it.

launchers.py holds the launcher table (LAUNCHERS, one module each: local, mpirun, srun, loopback,
external, charmrun, smpirun (SimGrid's simulated MPI), and the cluster launchers dask, spark, ray
and parsl_pools), which the registry entry's `launcher` key picks from; common.py what every
launcher shares, cluster_launcher.py what the cluster launchers share (their starter and the
command line around the system's: the clusters themselves are clusters/), mpi_common.py and
slurm_mpi.py what the MPI launchers share. runner.py runs a command (one run, with a timeout, into a
RunOutcome), diagnosis.py names a rank's death from what the MPI launcher said. Where a run goes
is hosts/; the processes' ties, guard and clean-up are process/.

Systems are passed in as they are (any object with the registry entry's fields): nothing here
imports the registry. Importing a module of this package loads every launcher (below): the
modules a system's own process needs are in clusters/, hosts/ and process/, which never import
this package.
"""

from taskbench.launch.launchers import LAUNCHERS, MPI_LAUNCHERS, command, why_not_here
from taskbench.launch.common import LaunchOptions, LaunchCommand

__all__ = ["LAUNCHERS", "MPI_LAUNCHERS", "LaunchOptions", "LaunchCommand", "command", "why_not_here"]
