"""What a cluster launcher is (dask, spark; one per engine and start method): a cluster starter
program beside the system's executable, in the same build, that starts the cluster, runs the
system attached to it and stops the cluster after it (its *_cluster_main.py). A launcher module
names its starter and says which arguments the starter gets; the rest is here."""

from __future__ import annotations

from pathlib import Path

from taskbench.launch.plan import LaunchOptions, LaunchPlan, base_environment, merged_env, program
from taskbench.provenance import available_cores


class ClusterLauncher:
    def __init__(self, starter: str):
        self.starter = starter  # the starter's name in the build's bin folder

    def starter_path(self, system) -> Path:
        return system.binary_path.parent / self.starter

    def why_not_here(self, system) -> str:
        if system.binary_path is not None and not self.starter_path(system).is_file():
            return f"{self.starter_path(system)} missing (the build writes it with the Python systems): run the build"
        return ""

    def workers(self, system, options: LaunchOptions) -> int:
        """The cluster's workers: --workers, else the registry entry's `ranks`, else the cores."""
        return options.ranks or system.ranks or available_cores()

    def plan(self, system, flags: list[str], options: LaunchOptions, starter_args: list[str], ranks: int,
             threads_per_rank: int) -> LaunchPlan:
        """The starter with its own arguments, then `--` and the system's command line."""
        set_env = base_environment(system, options)
        argv = [str(self.starter_path(system)), *starter_args, "--", *program(system), *flags]
        return LaunchPlan(argv, merged_env(set_env), set_env, ranks, threads_per_rank)
