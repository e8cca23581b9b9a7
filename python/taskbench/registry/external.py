"""External systems: any command that takes the Task Bench flags and prints the original
summary lines (`Total Tasks`, `Total FLOPs`, `Total Bytes`, `Elapsed Time`), e.g. a port from
the original suite, measured and stored beside ours.

Two ways to name one: `--external NAME=CORES:COMMAND` on `taskbench metg` / `taskbench run`, or
a registry entry with `external = true`, `command = "..."` and `cores = N`. COMMAND is split
like a shell line (shlex); the harness appends the Task Bench flags but no `-json` (another
suite does not know it). CORES is how many cores the command uses: the command is responsible
for using them (it gets no threads flag unless its entry has a `threads_flag`), and the harness
counts them for task granularity and for the peak its efficiency is measured against.
"""

from __future__ import annotations

from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError
from taskbench.launch.external import program_path, split_command
from taskbench.registry.system import System


def parse_spec(text: str) -> tuple[str, int, str]:
    """`NAME=CORES:COMMAND` -> (name, cores, command)."""
    where = f"--external {text}"
    name, eq, rest = text.partition("=")
    cores_text, colon, command = rest.partition(":")
    if not eq or not colon:
        raise UserError(f"{where}: expected NAME=CORES:COMMAND (e.g. orig_serial=1:./serial)", EXIT_USAGE)
    name = name.strip()
    if not name or any(c in name for c in "/ \t"):
        raise UserError(f"{where}: NAME must be non-empty, without spaces or '/'", EXIT_USAGE)
    try:
        cores = int(cores_text)
    except ValueError:
        cores = 0
    if cores <= 0:
        raise UserError(f"{where}: CORES '{cores_text}' must be a positive whole number", EXIT_USAGE)
    split_command(command, where)
    return name, cores, command.strip()


def resolve_external(system) -> None:
    """Sets binary_path / reason / available of an external system (registry.resolve's part)."""
    system.binary_path = None
    if type(system.cores) is not int or system.cores <= 0:  # bool is an int to Python, not a count
        system.reason = f"external system needs 'cores = N' (a positive number), not {system.cores!r}"
    elif not system.command:
        system.reason = "external system needs 'command = \"...\"'"
    else:
        try:
            first = split_command(system.command, f"system '{system.name}'")[0]
        except UserError as exc:
            system.reason = str(exc)
        else:
            system.binary_path = program_path(first)
            system.reason = "" if system.binary_path else f"command not found: {first}"
    system.available = not system.reason


def add_externals(registry, externals: dict[str, dict]) -> None:
    """Adds `--external` systems ({name: {"cores": N, "command": "..."}}) to the registry;
    one that cannot run is an error now, not a campaign of failed runs."""
    for name, spec in externals.items():
        if name in registry.systems and not registry.systems[name].external:
            raise UserError(f"--external {name}: a registry system already has that name", EXIT_USAGE)
        system = System(name=name, binary=name, folder=Path.cwd(), launcher="external",
                        external=True, command=spec["command"], cores=int(spec["cores"]),
                        description="external command")
        resolve_external(system)
        if not system.available:
            raise UserError(f"--external {name}: {system.reason}", EXIT_USAGE)
        registry.systems[name] = system


def externals_from_specs(specs: list[str] | None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for text in specs or []:
        name, cores, command = parse_spec(text)
        if name in out:
            raise UserError(f"--external {name}: given twice", EXIT_USAGE)
        out[name] = {"cores": cores, "command": command}
    return out
