"""Random command lines the core must accept, for the valid-configuration fuzz test
(test_valid_configs.py). flag_lines.py draws mostly invalid lines to test the
parser; these are all valid, so that every line reaches execution: 1 to 3 graphs joined by -and,
every pattern with a radix, period and fraction that fit it, every kernel with the scratch it
needs (docs/spec.md §4, as the core checks each graph), outputs from 16 bytes to 64 KiB, flags in any
order and sometimes left at their defaults.

Each line is small enough to run in milliseconds (line_cost.py's estimate, and a cap on the tasks
for the Python engines, whose tasks cost tens of microseconds each)."""
from __future__ import annotations

import random

from flag_lines import KERNELS, PATTERNS
from line_cost import cheap, parse_accepted, row_widths

MAX_TASKS = 240  # per line, over its graphs
RANDOM_PATTERNS = ("random_nearest", "random_spread")
OUTPUTS = [16, 16, 17, 24, 64, 100, 128, 129, 1000, 4096, 4100]


class ValidLines:
    """Draws valid lines from `seed`. `kernels` leaves out compute_dgemm in a build without BLAS."""

    def __init__(self, seed: int, kernels: list[str] = KERNELS):
        self.rng = random.Random(seed)
        self.kernels = list(kernels)
        self.decks: dict[str, list[str]] = {}

    def deal(self, name: str, cards: list[str]) -> str:
        """The next card of a shuffled deck, refilled when empty: every pattern and kernel comes
        up once in every len(cards) graphs, so even a short run of lines covers them all."""
        deck = self.decks.setdefault(name, [])
        if not deck:
            deck += self.rng.sample(cards, len(cards))
        return deck.pop()

    def sometimes(self, p: float = 0.3) -> bool:
        return self.rng.random() < p

    def graph(self) -> list[str]:
        rng = self.rng
        pattern, kernel = self.deal("pattern", PATTERNS), self.deal("kernel", self.kernels)
        # -width is always given: its default is the core count on some systems.
        width = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16] if not self.sometimes(0.05) else [31, 64, 100])
        flags: dict[str, object] = {"-type": pattern, "-width": width, "-kernel": kernel}
        if width <= 4 and self.sometimes(0.1):
            # Long and narrow: more rows than some systems keep in flight or in one window.
            flags["-steps"] = rng.randint(10, 60)
        elif pattern == "tree" or not self.sometimes(0.15):  # tree's rows double: steps matter
            flags["-steps"] = rng.randint(1, 9)
        if pattern in ("spread", "random_spread"):
            flags["-radix"] = rng.randint(0, width)  # every radix pattern's radix is at most the width
        elif pattern in ("nearest", "random_nearest"):
            flags["-radix"] = rng.randint(0, min(9, width))
        elif self.sometimes(0.1):
            flags["-radix"] = rng.randint(0, 9)  # ignored by the other patterns
        if pattern in ("spread", *RANDOM_PATTERNS) or self.sometimes(0.1):
            if not self.sometimes(0.2):  # else the default, 3
                flags["-period"] = rng.randint(1, 5)
        if pattern in RANDOM_PATTERNS or self.sometimes(0.1):
            if not self.sometimes(0.2):
                flags["-fraction"] = rng.choice(["0", "0.1", "0.25", "0.5", "0.75", "1", f"{rng.random():.3f}"])
        flags.update(self.kernel_flags(kernel))
        if not self.sometimes(0.25):
            flags["-output"] = rng.choice(OUTPUTS) if not self.sometimes(0.03) else 65536
        if self.sometimes(0.3):
            flags["-seed"] = rng.choice([0, 1, 7, 12345, 1 << 60])
        if self.sometimes(0.15):
            flags["-field"] = rng.randint(1, 4)
        items = list(flags.items())
        rng.shuffle(items)  # the core must not care about the order
        return [str(x) for item in items for x in item]

    def kernel_flags(self, kernel: str) -> dict[str, object]:
        rng = self.rng
        flags: dict[str, object] = {}
        if kernel in ("memory_bound", "memory_daxpy"):
            sample = rng.choice([1, 2, 3, 4, 8, 16])
            if sample != 16 or self.sometimes(0.5):
                flags["-sample"] = sample
            # A positive multiple of 16 x -sample (docs/spec.md §4).
            flags["-scratch"] = 16 * sample * rng.randint(1, 16)
            flags["-iter"] = rng.randint(0, 8)
        elif kernel == "compute_dgemm":
            n = rng.randint(1, 10)  # N = floor(sqrt(scratch / 24)); at least 24 bytes
            flags["-scratch"] = 24 * n * n + rng.choice([0, 0, 8, 23])
            flags["-iter"] = rng.randint(0, 3)
        elif kernel == "io_bound":
            flags["-iter"] = rng.randint(0, 2)  # a 4 KiB write and read back each
        else:
            most = {"empty": 5, "busy_wait": 500, "compute_bound": 100, "compute_bound2": 100,
                    "load_imbalance": 100}[kernel]
            if not self.sometimes(0.1):
                flags["-iter"] = rng.randint(0, most)
        if kernel == "load_imbalance" or self.sometimes(0.05):
            flags["-imbalance"] = rng.choice(["0", "0.5", "1", "1.7", "2", f"{2 * rng.random():.3f}"])
        # Scratch and samples the kernel does not use are allocated and ignored.
        if "-scratch" not in flags and self.sometimes(0.1):
            flags["-scratch"] = rng.choice([8, 64, 1000, 4096])
        if kernel not in ("memory_bound", "memory_daxpy") and self.sometimes(0.05):
            flags["-sample"] = rng.randint(1, 32)
        return flags

    def line(self) -> list[str]:
        """One line of 1 to 3 graphs, redrawn until it is cheap to run."""
        while True:
            # Kept to deal the same patterns and kernels again if this line is too expensive.
            decks = {name: list(deck) for name, deck in self.decks.items()}
            args: list[str] = []
            for _ in range(self.rng.choices([1, 2, 3], [4, 3, 3])[0]):
                args += (["-and"] if args else []) + self.graph()
            if self.sometimes(0.1):
                args += ["-nodes", str(self.rng.randint(1, 4))]
            if self.sometimes(0.1):
                args.append("-skip-graph-validation")
            run = parse_accepted([a.encode() for a in args], {}, 4)
            if cheap(run) and sum(row_widths(g) for g in run.graphs) <= MAX_TASKS:
                return args
            self.decks = decks


def graphs(args: list[str]) -> int:
    return args.count("-and") + 1
