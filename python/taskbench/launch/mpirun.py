"""mpirun launcher: Open MPI's `mpirun -np N --oversubscribe` or MPICH's `mpiexec -n N`.

The registry entry's `mpi` key ("openmpi", the default, or "mpich") picks the flavour, because
their flags for oversubscription and for exporting environment variables differ.
"""

from __future__ import annotations

from taskbench.launch import (LaunchOptions, LaunchPlan, base_environment, merged_env, program,
                              threads_flags)
from taskbench.launch.mpi_common import (EXPECT_RANKS_FLAG, find_launcher, flavour, rank_count,
                                         running_as_root)


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    ranks = rank_count(system, options)
    set_env = base_environment(system, options)
    program_argv = [*program(system), *flags, *threads_flags(system, options),
                    EXPECT_RANKS_FLAG, str(ranks)]
    program_name = find_launcher(system) or ("mpiexec" if flavour(system) == "mpich" else "mpirun")
    threads = options.threads_per_rank or system.threads_per_rank or 1
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
    argv += [str(a) for a in system.extra.get("mpirun_args", [])]
    return LaunchPlan(argv + program_argv, merged_env(set_env), set_env, ranks,
                      options.threads_per_rank or system.threads_per_rank)
