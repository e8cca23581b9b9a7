"""Reading the stdout of the original Task Bench: one block per run, each opened by
"Running Task Benchmark", with the configuration of every task graph (its kernel's iterations
among it), then the totals and "Elapsed Time". A file holds many runs (problem sizes and their
repetitions); a block cut short (a run that died) has no "Elapsed Time" and is left out."""

from __future__ import annotations

import re
from dataclasses import dataclass

BLOCK_START = "Running Task Benchmark"
_ITERATIONS = re.compile(r"^\s*Iterations: (\d+)\s*$", re.M)
_STEPS = re.compile(r"^\s*Time Steps: (\d+)\s*$", re.M)
_TOTAL = {name: re.compile(rf"^{name} (\S+)", re.M) for name in ("Total Tasks", "Total FLOPs", "Elapsed Time")}


@dataclass(frozen=True)
class LogRun:
    iterations: tuple[int, ...]  # each graph's kernel iterations: the problem size
    tasks: int
    flops: float
    elapsed_seconds: float
    steps: int = 0  # the longest graph's timesteps (0: the block names none)


def runs(text: str) -> list[LogRun]:
    """Every complete run of a log, in the file's order."""
    found = []
    for block in text.split(BLOCK_START)[1:]:
        totals = {name: rx.search(block) for name, rx in _TOTAL.items()}
        if not all(totals.values()):
            continue
        found.append(LogRun(tuple(int(i) for i in _ITERATIONS.findall(block)), int(totals["Total Tasks"][1]),
                            float(totals["Total FLOPs"][1]), float(totals["Elapsed Time"][1]),
                              max(map(int, _STEPS.findall(block)), default=0)))
    return found


def cut_short(text: str) -> int:
    """The blocks of a log that a run died in (no totals): the original's scripts refuse such a
    log whole (its columns come out uneven), where runs() leaves those blocks out."""
    return sum(1 for block in text.split(BLOCK_START)[1:]
               if not all(rx.search(block) for rx in _TOTAL.values()))


def repetitions(runs: list[LogRun]) -> dict[int, list[LogRun]]:
    """The runs by repetition: the k-th run of a problem size in the log is its repetition k
    (the logs hold each size's repetitions one after another)."""
    seen: dict[tuple[int, ...], int] = {}
    reps: dict[int, list[LogRun]] = {}
    for run in runs:
        k = seen.get(run.iterations, 0)
        seen[run.iterations] = k + 1
        reps.setdefault(k, []).append(run)
    return reps
