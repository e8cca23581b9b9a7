"""Exit codes and the one error type that the CLI turns into a one-line message.

Exit codes (documented in docs/harness.md; scripts rely on them):
  0  success
  1  internal error (a bug in the harness: the only case that shows a traceback); and
     `check`: a metric regressed (no traceback: the table and a REGRESSED line say which)
  2  usage error: bad arguments, unknown system or campaign, bad flags passed to a system
  3  measured, but one or more runs failed (crash, validation, timeout); they are stored
  4  environment: nothing built, system not available here, database unusable (damaged, or
     read-only for a command that writes), a campaign another process is running
  5  `metg --strict`: measured, but a METG is unreliable (repetitions disagree, or other
     processes disturbed the runs); everything is stored, marked so. `compare` and `predict`:
     a conclusion was not drawn from an unreliable METG (`--allow-unreliable` draws it).
     `check`: nothing regressed, but an answer is inconclusive (noise, too few repetitions)
  130 interrupted (Ctrl-C); what was measured is stored, `--resume` continues (an interrupted
     `taskbench run` stores nothing: its one run did not finish)
"""

import difflib

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_REGRESSED = 1  # `check`, as CI systems read a failed step; internal errors show a traceback
EXIT_USAGE = 2
EXIT_RUNS_FAILED = 3
EXIT_ENVIRONMENT = 4
EXIT_UNRELIABLE = 5
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A mistake or a missing piece the user can fix: printed as one line, never a traceback."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE):
        super().__init__(message)
        self.exit_code = exit_code


def did_you_mean(word: str, known) -> str:
    """"; did you mean NAME?" for the known name closest to a mistyped one, else "". Case is
    ignored in the comparison ("mpi" finds MPI), never in the answer."""
    by_folded = {name.casefold(): name for name in known}
    close = difflib.get_close_matches(word.casefold(), list(by_folded), n=1, cutoff=0.6)
    return f"; did you mean {by_folded[close[0]]}?" if close else ""
