"""External launcher: the user's command (split like a shell line), then the run's flags.

No `-json`, and no threads flag unless the entry names one: the command itself uses the cores
its `--external NAME=CORES:...` or registry entry declares (see taskbench.external).
"""

from __future__ import annotations

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.external import split_command
from taskbench.launch import LaunchOptions, LaunchPlan, base_environment, merged_env, threads_flags


def command(system, flags: list[str], options: LaunchOptions) -> LaunchPlan:
    if options.ranks and options.ranks != 1:
        raise UserError(f"external system '{system.name}' starts its own processes: --ranks does not apply",
                        EXIT_USAGE)
    if options.threads_per_rank and not system.threads_flag:
        raise UserError(f"external system '{system.name}' uses the {system.cores} core(s) it declares: "
                        "--threads-per-rank does not apply (give its entry a threads_flag)", EXIT_USAGE)
    words = split_command(system.command, f"system '{system.name}'")
    set_env = base_environment(system, options)
    argv = [str(system.binary_path), *words[1:], *system.args, *flags, *threads_flags(system, options)]
    return LaunchPlan(argv, merged_env(set_env), set_env, 1, options.threads_per_rank)
