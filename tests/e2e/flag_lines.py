"""Random command lines for the systems' flag fuzz test (test_fuzz_flags.py), the same kinds as
core/tests/flag_lines.cc: valid flags and whole coherent graphs, the system's own flags, unknown
flags, values at and beyond each flag's bounds, numbers no flag takes (NaN, inf, 1e308, 2^64),
malformed numbers (" 5", "0x10", "+5"), empty and non-ASCII values, -json/-trace paths that can
and cannot be written, repeated flags, -and first, last and doubled, and missing values.

Arguments are bytes, not str: a line may hold bytes that are not UTF-8 (subprocess passes them
through unchanged)."""
from __future__ import annotations

import random
from pathlib import Path

P60 = 1 << 60

# (flag, min, max, typical values): the bounds of docs/spec.md §4 / args.cc.
GRAPH_INT_FLAGS = [
    ("-steps", 1, P60, [1, 2, 3, 4, 5, 9, 64, 1000]),
    ("-width", 1, P60, [1, 2, 3, 4, 5, 7, 13, 64, 1000, 1 << 20]),
    ("-radix", 0, 1 << 20, [0, 1, 2, 3, 4, 5, 7, 16]),
    ("-period", 1, 1 << 20, [1, 2, 3, 4, 5]),
    ("-iter", 0, P60, [0, 1, 2, 10, 100, 1000]),
    ("-output", 16, 1 << 32, [16, 17, 24, 64, 100, 128, 129, 1024, 4096]),
    ("-scratch", 0, 1 << 40, [0, 24, 256, 512, 4096, 65536]),
    ("-sample", 1, 1 << 30, [1, 2, 4, 16]),
    ("-field", 1, 1 << 20, [1, 2, 3, 5]),
    ("-seed", 0, P60, [0, 1, 7, 12345]),
]
PATTERNS = ["trivial", "no_comm", "stencil_1d", "stencil_1d_periodic", "dom", "tree", "fft",
            "all_to_all", "nearest", "spread", "random_nearest", "random_spread"]
KERNELS = ["empty", "busy_wait", "memory_bound", "compute_dgemm", "memory_daxpy", "compute_bound",
           "compute_bound2", "io_bound", "load_imbalance"]
BAD_NAMES = [b"", b" ", b"stencil", b"Trivial", b"trivial ", b"EMPTY", b"\xff", "été".encode(), b"dom\n"]
ODD_VALUES = [
    b"NaN", b"nan", b"inf", b"-inf", b"+inf", b"1e308", b"-1e308", b"1e-400", b"99999999999999999999",
    b"18446744073709551616", b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808",
    b"1152921504606846976", b"1152921504606846977", b"4294967296", b"-1", b"-5", b"-0", b"+0", b"0",
    b"", b" ", b"\t", b" 5", b"5 ", b"5\n", b"0x10", b"0X10", b"010", b"+5", b"++5", b"--5", b"3.5",
    b"1e3", b"1,000", b"\xff\xfe", "é".encode(), b"0.5", b".5", b"5.", b"-.5", b"1e", b"-", b"--"]
UNKNOWN_FLAGS = [b"-iters", b"--steps", b"-Steps", b"-step", b"-", b"--", b"steps", b"5", b"", b" ",
                 b"-\xff", b"-and\n", b"-h=1", b"-json=x", b"-vvv", b"-kernel=empty", b"\n", b"-worker2"]
SWITCHES = [b"-v", b"-vv", b"-skip-graph-validation"]
HELP = [b"-h", b"-help", b"--help"]


def encode(value) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


class LineMaker:
    """Draws lines for one system. `system_flags` maps the system's own flags (from its -h) to
    whether they take a value; `directory` is where writable -json/-trace files go (the systems
    run there, so relative names land there too)."""

    def __init__(self, seed: int, system_flags: dict[str, bool], directory: Path):
        self.rng = random.Random(seed)
        self.system_flags = system_flags
        self.directory = directory
        self.count = 0

    def int_value(self, low: int, high: int, typical: list[int]) -> bytes:
        roll = self.rng.random()
        if roll < 0.6:
            return encode(self.rng.choice(typical))
        if roll < 0.8:
            return encode(self.rng.choice([low, high, low - 1, high + 1, P60, P60 + 1, high // 2]))
        if roll < 0.87:
            return encode(self.rng.choice([10 ** self.rng.randrange(19), self.rng.getrandbits(63) >> self.rng.randrange(63)]))
        return self.rng.choice(ODD_VALUES)

    def double_value(self, high: float) -> bytes:
        roll = self.rng.random()
        if roll < 0.6:
            return self.rng.choice([b"0", b"0.25", b"0.5", b"1", b"0.999", b".5"])
        if roll < 0.8:
            return self.rng.choice([b"0", encode(high), b"2.0000001" if high > 1 else b"1.0000001", b"-0",
                                    b"-0.0000001", b"1e-400", b"4.9e-324"])
        return self.rng.choice(ODD_VALUES)

    def path(self) -> bytes:
        self.count += 1
        writable = self.directory / f"report-{self.count}.json"
        choices = [writable, writable, f"relative-{self.count}.json", b"", self.directory, b"/",
                   self.directory / "missing-directory" / "r.json", b"/etc/hostname/r.json",
                   b"/proc/self/status/r.json", b"r\n.json", b"\xff.json"]
        return encode(self.rng.choice(choices))

    def coherent_graph(self) -> list[bytes]:
        """A small graph whose flags fit together, so that long lines still get accepted."""
        width = self.rng.choice([1, 2, 3, 5, 8, 13])
        kernel = self.rng.choice(["empty", "busy_wait", "compute_bound", "memory_bound", "memory_daxpy",
                                  "compute_bound2", "load_imbalance", "io_bound"])
        items = ["-type", self.rng.choice(PATTERNS), "-width", width, "-steps", self.rng.randint(1, 9),
                 "-radix", self.rng.randint(0, width), "-period", self.rng.randint(1, 4),
                 "-kernel", kernel, "-iter", self.rng.randrange(30) if kernel != "io_bound" else self.rng.randrange(3)]
        if kernel.startswith("memory"):
            sample = self.rng.randint(1, 4)
            items += ["-sample", sample, "-scratch", 16 * sample * self.rng.randint(1, 8)]
        if kernel == "load_imbalance":
            items += ["-imbalance", self.rng.choice(["0", "0.5", "2"])]
        if self.rng.random() < 0.3:
            items += ["-output", self.rng.choice([16, 100, 1024, 4096])]
        return [encode(x) for x in items]

    def item(self) -> list[bytes]:
        roll = self.rng.random()
        if roll < 0.15:
            return self.coherent_graph()
        if roll < 0.42:
            flag, low, high, typical = self.rng.choice(GRAPH_INT_FLAGS)
            return [flag.encode(), self.int_value(low, high, typical)]
        if roll < 0.48:
            return [b"-type", encode(self.rng.choice(PATTERNS)) if self.rng.random() < 0.9 else self.rng.choice(BAD_NAMES)]
        if roll < 0.53:
            return [b"-kernel", encode(self.rng.choice(KERNELS)) if self.rng.random() < 0.9 else self.rng.choice(BAD_NAMES)]
        if roll < 0.58:
            fraction = self.rng.random() < 0.5
            return [b"-fraction" if fraction else b"-imbalance", self.double_value(1 if fraction else 2)]
        if roll < 0.66:
            return [b"-and"]
        if roll < 0.69:
            return [b"-nodes", self.int_value(1, 1 << 30, [1, 2, 3, 4])]
        if roll < 0.73:
            return [self.rng.choice(SWITCHES)]
        if roll < 0.80:
            return [self.rng.choice([b"-json", b"-trace"]), self.path()]
        if roll < 0.89 and self.system_flags:
            flag = self.rng.choice(sorted(self.system_flags))
            if not self.system_flags[flag]:
                return [flag.encode()]
            return [flag.encode(), self.int_value(0, 4096, [1, 2] if flag != "-home" else [0, 1])]
        if roll < 0.90:
            return [self.rng.choice(HELP)]
        junk = [self.rng.choice(UNKNOWN_FLAGS)]
        return junk + ([encode(self.rng.randrange(10))] if self.rng.random() < 0.5 else [])

    def line(self) -> list[bytes]:
        args: list[bytes] = []
        for _ in range(self.rng.randrange(9)):
            args += self.item()
        if self.rng.random() < 0.08:
            args.insert(0, b"-and")
        if self.rng.random() < 0.08:
            args.append(b"-and")
        if self.rng.random() < 0.05:
            at = self.rng.randrange(len(args) + 1)
            args[at:at] = [b"-and", b"-and"]
        if self.rng.random() < 0.07 and args:
            args.pop()  # a missing value, or a lost switch
        if self.rng.random() < 0.05:
            at = self.rng.randrange(len(args) + 1)
            args.insert(at, self.rng.choice(ODD_VALUES + UNKNOWN_FLAGS))
        return args


def shown(args: list[bytes]) -> str:
    """The line as one printable string, for failure messages."""
    return " ".join(repr(a)[1:] for a in args)
