"""Human-readable figures: seconds with SI prefixes, rates, percentages."""

from __future__ import annotations

import math

_PREFIXES = [(1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s")]
_RATE_PREFIXES = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value == 0:
        return "0 s"
    return _scaled(value, _PREFIXES, "")


def _scaled(value: float, prefixes: list[tuple[float, str]], unit: str) -> str:
    """value in the largest prefix it reaches once rounded (999.7 ns is "1.00 µs", not "1e+03 ns"),
    to 3 significant digits with their trailing zeros ("2.00 µs": the same digits as its
    interval's bounds, and a figure that reads as measured to 3 digits, which "2 µs" does not)."""
    ranked = sorted(prefixes)
    scale, name = ranked[0]
    for s, n in ranked:
        if abs(float(_digits(value / s))) >= 1:
            scale, name = s, n
    return f"{_digits(value / scale)} {name}{unit}"


def seconds_interval(value: float | None, low: float | None, high: float | None) -> str:
    """"352 ns (341-366)": a figure and its interval, the bounds in the figure's unit (a bound
    in another one, "980 ns (950-1020)", stays readable beside it); "352 ns" without one; a bound
    the data cannot place (infinite: a resample of the repetitions with no crossing) reads
    "unbounded above" or "unbounded below"."""
    if value is None:
        return "—"
    figure = seconds(value)
    if low is None or high is None or value == 0:
        return figure
    scale = next(s for s, n in reversed(_PREFIXES) if figure.endswith(" " + n))
    if math.isinf(high) and low <= 0:
        return f"{figure} (unbounded above and below)"
    if math.isinf(high):
        return f"{figure} (from {_digits(low / scale)}, unbounded above)"
    if low <= 0:
        return f"{figure} (up to {_digits(high / scale)}, unbounded below)"
    return f"{figure} ({_digits(low / scale)}–{_digits(high / scale)})"


# What follows an unreliable METG wherever it is shown (measure/metg/reliability.py says why it is one).
UNRELIABLE_MARK = " (unreliable)"
# What follows a METG the sweep could only bound from above (its efficiency never fell below the
# threshold): every command says it the same way.
BOUND_MARK = " or less"


def metg(value: float | None, low: float | None = None, high: float | None = None, bound: bool = False,
         unreliable: bool = False, missing: str = "no METG") -> str:
    """A METG as every command shows it: "352 ns (341–366)", with " or less" where it is an upper
    bound and " (unreliable)" where it is not a result; `missing` where there is none."""
    if value is None:
        return missing + (UNRELIABLE_MARK if unreliable else "")
    return (seconds_interval(value, low, high) + (BOUND_MARK if bound else "")
            + (UNRELIABLE_MARK if unreliable else ""))


def ratio_bound(numerator_bound: bool, denominator_bound: bool) -> str | None:
    """How a ratio of two METGs holds where either is an upper bound (" or less"): "at most "
    over a bound numerator, "at least " over a bound denominator, "" where neither is one; None
    where both are (no ratio can be drawn)."""
    if numerator_bound and denominator_bound:
        return None
    return "at most " if numerator_bound else "at least " if denominator_bound else ""


def unbounded(low: float | None, high: float | None) -> bool:
    """Whether an interval has a side the data cannot place (seconds_interval's "unbounded")."""
    return low is not None and high is not None and (low <= 0 or math.isinf(high))


def half_width(value: float | None, low: float | None, high: float | None) -> str:
    """An interval's half-width over its figure, "±4.6%", as every command shows it: "unbounded"
    where a side cannot be placed (a width from 0 or to infinity is no figure), "—" without an
    interval."""
    if value is None or low is None or high is None or value == 0:
        return "—"
    if unbounded(low, high):
        return "unbounded"
    return f"±{(high - low) / 2 / value:.1%}"


def _digits(value: float) -> str:
    """3 significant digits, trailing zeros kept; from 1000 on the whole number (1234, not
    1.23e+03 nor 1230, which would read as exact)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    rounded = float(f"{value:.3g}")  # 999.7 -> 1000.0: its digits are counted after rounding
    if abs(rounded) >= 1000:
        return f"{value:.0f}"
    decimals = max(0, 2 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{decimals}f}"


def rate(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return _scaled(value, _RATE_PREFIXES, unit)


def percent(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f}%"


def integer(value: float) -> str:
    """A whole number with thousands separators: 16384000 -> '16,384,000'."""
    return f"{round(value):,}"


def significant(value: float, digits: int = 3) -> str:
    """A large figure to `digits` significant digits, written out: 69573.2 -> '69,600'."""
    return integer(float(f"{value:.{digits}g}")) if abs(value) >= 10 ** (digits - 1) else f"{value:.{digits}g}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 repetition', '3 repetitions', '0 runs': a number with its noun in the right number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class Figures:
    """A table's figures: formatted for a reader, or with raw=True (-q, for scripts) the numbers
    themselves, in seconds, units per second and fractions; a missing one is then empty."""

    def __init__(self, raw: bool):
        self.raw = raw

    def seconds(self, value: float | None):
        return ("" if value is None else value) if self.raw else seconds(value)

    def rate(self, value: float | None, unit: str):
        return ("" if value is None else value) if self.raw else rate(value, unit)

    def percent(self, value: float | None):
        return ("" if value is None else value) if self.raw else percent(value)

    def integer(self, value: float):
        return round(value) if self.raw else integer(value)

    def number(self, value: float, spec: str, suffix: str = ""):
        """A ratio or a size: format(value, spec) + suffix for a reader ("1.05x")."""
        return value if self.raw else format(value, spec) + suffix


READABLE = Figures(raw=False)
