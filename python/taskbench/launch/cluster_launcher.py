"""What every cluster launcher is built on (one small file each: dask.py, ray.py, spark.py,
parsl_pools.py). A cluster launcher's command runs its starter, a helper program of the build
(build/libexec/taskbench/<starter>, through clusters/starter.py), which starts the engine's
cluster with the engine's own commands (as its users start one by hand or in a batch job), on
this machine or across the hosts of a cluster description, runs the system attached to it, and
stops every process of the cluster after it, by pid, however the run ended; it ends as the run
ended. The cluster itself is the starter's (clusters/): here only the launcher's side, the
starter, its check and the command line around the system's."""

from __future__ import annotations

from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.common import LaunchOptions, LaunchCommand, base_environment, helper_path, merged_env, program
from taskbench.provenance import available_cores


class ClusterLauncher:
    def __init__(self, starter: str):
        self.starter = starter  # its name among the build's helpers (clusters/starter.py runs the engine's main())

    def starter_path(self, system) -> Path:
        return helper_path(system, self.starter)

    def why_not_here(self, system) -> str:
        if system.binary_path is not None and not self.starter_path(system).is_file():
            return f"{self.starter_path(system)} missing (the build writes it with the Python systems): run the build"
        return ""

    def require(self, system) -> None:
        """For a launcher that needs its starter across hosts only: a UserError without it."""
        if reason := self.why_not_here(system):
            raise UserError(f"--hosts: {reason}", EXIT_USAGE)

    def workers(self, system, options: LaunchOptions) -> int:
        """--workers, else the registry entry's `ranks`, else the cores (of every host, with --hosts)."""
        return options.ranks or system.ranks or (options.cluster.cores if options.cluster else available_cores())

    def command(self, system, flags: list[str], options: LaunchOptions, starter_args: list[str], ranks: int,
             threads_per_rank: int) -> LaunchCommand:
        """The starter with its own arguments (and -hosts FILE), then `--` and the system's command line."""
        set_env = base_environment(system, options)
        hosts = ["-hosts", str(options.cluster.path)] if options.cluster is not None else []
        argv = [str(self.starter_path(system)), *starter_args, *hosts, "--", *program(system), *flags]
        return LaunchCommand(argv, merged_env(set_env), set_env, ranks, threads_per_rank)
