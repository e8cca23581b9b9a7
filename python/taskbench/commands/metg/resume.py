"""`metg --resume`: a resumed campaign runs the systems and options it stored when it started
(its plan is replayed over its stored runs), so systems or sweep options given beside --resume
would be ignored; they are refused instead, naming each one, before anything is opened."""

from __future__ import annotations

import argparse

from taskbench.errors import EXIT_USAGE, UserError

# What a resume does take: which campaign, and what it does after the sweep (trace, report,
# published table, exit status), plus the options every command has.
APPLIES_ON_RESUME = {"resume", "campaign", "trace", "html", "reference", "reference_nodes", "strict",
                     "help", "db", "build_dir", "quiet", "command", "system_flags"}


def _defaults(add_parser) -> list[argparse.Action]:
    """The metg parser's actions, with their defaults (a fresh parser: never the one parsing)."""
    subparsers = argparse.ArgumentParser(add_help=False).add_subparsers()
    return add_parser(subparsers, argparse.ArgumentParser(add_help=False))._actions


def ignored(args, add_parser) -> list[str]:
    """The systems and options of this command line that a resume would not use, as typed."""
    words = []
    for action in _defaults(add_parser):
        if action.dest in APPLIES_ON_RESUME or not hasattr(args, action.dest):
            continue
        value = getattr(args, action.dest)
        if value == action.default or value in (None, [], False):
            continue
        if not action.option_strings:  # the systems
            words += list(value)
        elif action.nargs == 0:  # a switch (--default)
            words.append(action.option_strings[0])
        else:
            shown = value if not isinstance(value, list) else ",".join(map(str, value))
            words.append(f"{action.option_strings[0]} {shown}")
    return words


def refuse_what_it_would_ignore(args, add_parser) -> None:
    words = ignored(args, add_parser)
    if words:
        which = f"campaign {args.resume or args.campaign}" if (args.resume or args.campaign) else \
            "the latest unfinished campaign"
        raise UserError(f"--resume continues {which} with the systems and options it stored: {', '.join(words)} "
                        "would be ignored; leave them out (or drop --resume for a new campaign)", EXIT_USAGE)
