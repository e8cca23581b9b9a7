"""srun launcher (Slurm): `srun -n N`, which exports the whole environment by default."""

from __future__ import annotations

import shutil

from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch.mpi_common import EXPECT_RANKS_FLAG, rank_layout
from taskbench.launch.plan import (LaunchOptions, LaunchPlan, base_environment, merged_env, program,
                                   threads_flags)

NOT_HERE = "srun not found on PATH (not on a Slurm cluster)"


def why_not_here(system) -> str:
    return NOT_HERE if shutil.which("srun") is None else ""


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    if shutil.which("srun") is None:
        raise UserError(NOT_HERE, EXIT_ENVIRONMENT)
    options = rank_layout(system, options)
    ranks, threads = options.ranks, options.threads_per_rank
    set_env = base_environment(system, options)
    argv = ["srun", "-n", str(ranks)]
    if threads:
        argv += ["--cpus-per-task", str(threads)]
    argv += [str(a) for a in system.extra.get("srun_args", [])]
    argv += [*program(system), *flags, *threads_flags(system, options),
             EXPECT_RANKS_FLAG, str(ranks)]
    return LaunchPlan(argv, merged_env(set_env), set_env, ranks, threads)
