"""External launcher: the user's command (split like a shell line), then the run's flags.

No `-json`, and no threads flag unless the entry names one: the command itself uses the cores
its `--external NAME=CORES:...` or registry entry declares (see taskbench/registry/external.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.common import LaunchOptions, LaunchCommand, base_environment, merged_env, threads_flags


# The summary lines an external command must print (the original Task Bench's report).
REQUIRED_SUMMARY = {"tasks": "Total Tasks", "flops": "Total FLOPs", "bytes": "Total Bytes",
                    "elapsed_seconds": "Elapsed Time"}


def split_command(command: str, where: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UserError(f"{where}: COMMAND '{command}': {exc}", EXIT_USAGE)
    if not words:
        raise UserError(f"{where}: COMMAND is empty", EXIT_USAGE)
    return words


def program_path(first_word: str) -> Path | None:
    """The command's executable: a path as given, else looked up on PATH."""
    if "/" in first_word:
        path = Path(first_word)
        return path.resolve() if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(first_word)
    return Path(found) if found else None


def missing_summary(figures: dict) -> list[str]:
    """The required summary lines absent from a parsed summary."""
    return [label for key, label in REQUIRED_SUMMARY.items() if figures.get(key) is None]


def why_not_here(system) -> str:
    return "" if system.binary_path is not None else f"command not found: {system.command}"


def command(system, flags: list[str], options: LaunchOptions) -> LaunchCommand:
    if options.ranks and options.ranks != 1:
        raise UserError(f"external system '{system.name}' starts its own processes: --ranks does not apply",
                        EXIT_USAGE)
    if options.threads_per_rank and not system.threads_flag:
        raise UserError(f"external system '{system.name}' uses the {system.cores} core(s) it declares: "
                        "--threads-per-rank does not apply (give its entry a threads_flag)", EXIT_USAGE)
    words = split_command(system.command, f"system '{system.name}'")
    set_env = base_environment(system, options)
    argv = [str(system.binary_path), *words[1:], *system.args, *flags, *threads_flags(system, options)]
    return LaunchCommand(argv, merged_env(set_env), set_env, 1, options.threads_per_rank)
