"""The `taskbench` command: parses arguments, dispatches to taskbench.commands.*, maps errors
to one line on stderr and a documented exit code (see taskbench.errors)."""

from __future__ import annotations

import argparse
import re
import signal
import sqlite3
import sys
import threading

from taskbench import __version__
from taskbench.commands import (campaigns, check, compare, export, hosts, metg, peak, predict, reference, report,
                                run, study, systems)
from taskbench.context import make_context
from taskbench.errors import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UserError, did_you_mean

COMMANDS = {m.__name__.rsplit(".", 1)[1]: m for m in (systems, run, peak, metg, predict, study, report,
                                                      compare, check, export, campaigns, hosts, reference)}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2, not the usage first: the line
    names the subcommand ("metg: ..."), says where its usage is, and main() adds the one
    "taskbench: " prefix."""

    def error(self, message):
        command = self.prog.removeprefix("taskbench").strip()
        # "argument --steps: 0: must be positive" (argparse's words around a commands/options.py type's)
        # reads as every other line: "--steps 0: must be positive"
        message = re.sub(r"^argument (--[\w-]+)(?:/--?[\w-]+)*: (.*?): ((?:must|not) .*)$", r"\1 \2: \3", message)
        needs_value = re.match(r"argument (--[a-z-]+)(?:/[^:]*)?: expected one argument", message)
        if needs_value:  # argparse takes a value that starts with a dash for an option
            message += f"; a value that starts with a dash goes as {needs_value.group(1)}=VALUE"
        # "argument --kernel: unknown kernel ..." (a type's own sentence): "--kernel: unknown kernel ..."
        message = re.sub(r"^argument (--[\w-]+)(?:/--?[\w-]+)*: ", r"\1: ", message)
        usage = f" (`taskbench {command + ' ' if command else ''}-h` shows the usage)"
        raise UserError(f"{command}: {message}{usage}" if command else f"{message}{usage}", EXIT_USAGE)

    def option_names(self) -> list[str]:
        return [name for action in self._actions for name in action.option_strings]


def _unrecognized(parser: _Parser, extras: list[str]) -> None:
    """The subcommand's own usage error for arguments it does not take, with the option it
    most likely meant."""
    hints = [did_you_mean(word.split("=", 1)[0], parser.option_names()) for word in extras if word.startswith("-")]
    parser.error(f"unrecognized arguments: {' '.join(extras)}{''.join(h for h in hints if h)}")


def _common_options() -> argparse.ArgumentParser:
    # SUPPRESS: an option given before the subcommand is not reset by the subcommand's default.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS, help="SQLite store (taskbench.db, or $TASKBENCH_DB)")
    common.add_argument("--build-dir", default=argparse.SUPPRESS,
                        help="CMake build folder with the executables (or $TASKBENCH_BUILD_DIR)")
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress bar or notes; tables as tab-separated text")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options()
    parser = _Parser(prog="taskbench", parents=[common],
                     description="Task Bench harness: run systems, sweep problem sizes, compute METG, report.",
                     epilog="exit codes: 0 ok, 2 usage, 3 some runs failed (stored), 4 environment, "
                            "5 unreliable METG (metg --strict) or an inconclusive check, 1 a check found a regression, "
                            "130 interrupted; see docs/harness.md")
    parser.add_argument("--version", action="version", version=f"taskbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMANDS.values():
        module.add_parser(subparsers, common)
    parser.commands = subparsers.choices  # name -> its parser, for its own usage errors
    return parser


def _command_index(argv: list[str]) -> int | None:
    """Position of the subcommand, past the global options that may precede it."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("--db", "--build-dir"):
            i += 2
        elif token.startswith("-"):
            i += 1
        else:
            return i
    return None


def parse(argv: list[str]) -> argparse.Namespace:
    parser = build_parser()
    system_flags: list[str] = []
    at = _command_index(argv)
    unknown = [t for t in argv[:at] if t.startswith("-") and t.split("=", 1)[0] not in parser.option_names()]
    if unknown:  # a mistyped global option would take the next word for the command
        _unrecognized(parser, unknown[:1])
    if at is not None and argv[at] not in COMMANDS:
        raise UserError(f"unknown command '{argv[at]}'{did_you_mean(argv[at], COMMANDS)} (`taskbench -h` lists "
                        "them)", EXIT_USAGE)
    if at is not None and argv[at] == "run":
        # Task Bench flags are single-dash (-steps, -v, -h): keep argparse away from them.
        harness, system_flags = run.split_argv(argv[at + 1:])
        argv = [*argv[:at], "run", *harness]
    args, extras = parser.parse_known_args(argv)
    if extras:
        subcommand = getattr(args, "command", None)
        _unrecognized(parser.commands[subcommand] if subcommand else parser, extras)
    args.system_flags = system_flags
    if args.command is None:
        parser.print_help(sys.stderr)
        raise UserError("name a command (e.g. `taskbench systems`)", EXIT_USAGE)
    return args


def _terminate(signum, frame):
    # SIGTERM (a job scheduler, `timeout`) unwinds like Ctrl-C: the running benchmark is killed
    # instead of being orphaned, and the store is closed cleanly.
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ctx = None
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        args = parse(argv)
        ctx = make_context(getattr(args, "db", None), getattr(args, "build_dir", None),
                           getattr(args, "quiet", False))
        return COMMANDS[args.command].main(args, ctx)
    except UserError as exc:
        print(f"taskbench: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("taskbench: interrupted; stored runs are kept (`--resume` continues a sweep)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except sqlite3.OperationalError as exc:
        print(f"taskbench: database error: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except BrokenPipeError:
        return EXIT_OK
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if ctx is not None:
            ctx.close()  # checkpoints the WAL: no -wal/-shm files left beside the store


if __name__ == "__main__":
    sys.exit(main())
