"""Local launcher: the binary itself, with the registry's environment and threads flag."""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.common import (LaunchOptions, LaunchCommand, base_environment, merged_env, program,
                                   threads_flags)


def why_not_here(system) -> str:
    return ""  # the binary itself: the registry has found it


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    if options.ranks and options.ranks != 1:
        raise UserError(f"system '{system.name}' runs locally in one process: --ranks does not apply",
                        EXIT_USAGE)
    if options.threads_per_rank and not system.threads_flag and system.cores != "all":
        raise UserError(f"system '{system.name}' has a fixed thread count: --threads-per-rank "
                        "does not apply", EXIT_USAGE)
    set_env = base_environment(system, options)
    argv = [*program(system), *flags, *threads_flags(system, options)]
    return LaunchCommand(argv, merged_env(set_env), set_env, 1,
                      options.threads_per_rank or system.threads_per_rank)
