"""srun launcher (Slurm): `srun --mpi=PLUGIN -n RANKS`, which exports the whole environment.

The plugin is the one this build's MPI speaks (slurm_mpi.py). Inside an allocation the run
spans the allocation's hosts (`--launcher srun` implies `--hosts slurm` there): one rank per
CPU the allocation has (and a driver rank where rank 0 only submits work), or for a hybrid
system one rank per host with its CPUs as threads; a scaling study's first N hosts are named
with --nodes and --nodelist. A rank that fails ends the step (--kill-on-bad-exit), as mpirun
ends its job."""

from __future__ import annotations

import os
import shutil

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.hosts import slurm
from taskbench.launch import slurm_mpi
from taskbench.launch.mpi_common import EXPECT_RANKS_FLAG, cluster_layout, rank_layout
from taskbench.launch.common import (LaunchOptions, LaunchCommand, base_environment, merged_env, program,
                                   threads_flags)

ACROSS_HOSTS = True  # the allocation's hosts (--hosts slurm)
NOT_HERE = "srun not found on PATH (not on a Slurm cluster)"


def why_not_here(system) -> str:
    return NOT_HERE if shutil.which("srun") is None else ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    if shutil.which("srun") is None:
        raise UserError(NOT_HERE, EXIT_ENVIRONMENT)
    cluster = options.cluster
    if cluster is not None:
        if not slurm.is_allocation(cluster):
            raise UserError(f"--launcher srun: the hosts of {cluster.path} are not a Slurm allocation's (their "
                            "start method is not srun): give --hosts slurm inside salloc or sbatch, or use "
                            "--launcher mpirun", EXIT_ENVIRONMENT)
        options = cluster_layout(system, options)
    options = rank_layout(system, options)
    ranks, threads = options.ranks, options.threads_per_rank
    set_env = base_environment(system, options)
    own_args = [str(a) for a in system.extra.get("srun_args", [])]
    argv = ["srun", "-n", str(ranks), "--kill-on-bad-exit=1"]
    pmi = slurm_mpi.plugin(system, own_args, os.environ)
    if pmi is not None:
        argv.insert(1, f"--mpi={pmi}")
    if cluster is not None:
        argv += ["--nodes", str(len(cluster)), "--nodelist", ",".join(h.name for h in cluster.hosts)]
        if ranks > cluster.cores:  # a driver rank beside one rank per CPU
            argv += ["--overcommit"]
    if threads:
        argv += ["--cpus-per-task", str(threads)]
    program_argv = [*program(system), *flags, *threads_flags(system, options), EXPECT_RANKS_FLAG, str(ranks)]
    if cluster is not None and "-nodes" not in flags:
        program_argv += ["-nodes", str(len(cluster))]
    argv += own_args + program_argv
    return LaunchCommand(argv, merged_env(set_env), set_env, ranks, threads)
