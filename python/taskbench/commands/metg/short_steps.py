"""A sweep of few timesteps: a run's timed region starts and ends once whatever its steps (workers
woken, the clock read, the last step waited for), and at few steps that fixed cost is a share of a
run at the METG large enough to be counted as the system's overhead. Measured on serial, 2 cores,
stencil_1d (width 2): the start and end take about 1.5 µs, and the METG read 245 ns at 20 steps,
144 ns at 100 and 106 ns at 1000 (docs/harness.md, "Few steps").

After a sweep of fewer than the paper's 1000 steps, each system's fixed cost is measured: a few
one-step runs and a few runs of the sweep's steps, in turn, at the size of the sweep's run nearest
its METG (runs not stored: a question about the sweep, not a measurement of its own); from the
fastest of each the fixed cost and the time of a step follow. A share above WARN_SHARE is a
warning with its figure and the steps that bring it under.
"""

from __future__ import annotations

import math

from taskbench import units
from taskbench.launch.runner import run_once
from taskbench.measure.sweep import campaign

WARN_SHARE = 0.05  # "a few percent" of a run at the METG
PAPER_STEPS = 1000  # the paper's runs, and `metg`'s default: not checked
TRIES = 3  # one-step runs; the fastest counts (background load only slows a run down)
SUGGESTED = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)


def fixed_cost(steps: int, elapsed: float, few: int, elapsed_few: float) -> tuple[float, float]:
    """(the timed region's start and end, one step's time) from two runs of one size that differ
    only in their steps: elapsed = fixed + steps x step."""
    step = max(0.0, (elapsed - elapsed_few) / (steps - few))
    return max(0.0, elapsed_few - few * step), step


def share(fixed: float, step: float, steps: int) -> float:
    total = fixed + steps * step
    return fixed / total if total > 0 else 0.0


def steps_for(fixed: float, step: float, limit: float = WARN_SHARE) -> int | None:
    """The first of SUGGESTED at which the fixed cost is at most `limit` of a run; None if none is."""
    return next((n for n in SUGGESTED if share(fixed, step, n) <= limit), None)


def _nearest_run(curve, metg: float) -> dict | None:
    """The run the METG was read nearest to: the counted try whose task granularity is closest
    (on a log scale) to it."""
    ok = [r for r in curve.counted.values() if r.get("status") == "ok" and r.get("granularity_seconds")
          and r.get("elapsed_seconds")]
    return min(ok, key=lambda r: abs(math.log(r["granularity_seconds"] / metg)), default=None)


def _fastest_elapsed(system, params, iterations: int, steps: tuple[int, ...]) -> list[float | None]:
    """The fastest of TRIES runs at each of `steps`, taken in turn (steps[0], steps[1], steps[0], ...)
    so that a slow spell of the machine falls on both: the sweep's own run at the METG is one
    sample, and a load that slowed it alone would read as a larger step and hide the fixed cost."""
    flags = params.flags(iterations)
    per_count = [[str(count) if j and flags[j - 1] == "-steps" else flag for j, flag in enumerate(flags)]
                 for count in steps]  # every graph's -steps
    options = campaign.sweep_options(system, params)
    times: list[list[float]] = [[] for _ in steps]
    for _ in range(TRIES):
        for i, these in enumerate(per_count):
            outcome = run_once(system, these, options, timeout=params.timeout)
            elapsed = outcome.metrics.get("elapsed_seconds")
            if outcome.ok and elapsed:
                times[i].append(elapsed)
    return [min(t, default=None) for t in times]


def warn(ctx, analysis) -> None:
    params = analysis.params
    if params.steps >= PAPER_STEPS or params.simulation is not None:
        return  # simulated time has no start and end to speak of
    few = 1 if params.steps > 1 else 2
    for name, curve in analysis.curves.items():
        metg = curve.summary.seconds if curve.summary else None
        run = _nearest_run(curve, metg) if metg else None
        if run is None:
            continue
        elapsed, elapsed_few = _fastest_elapsed(ctx.registry.get(name), params, run["iter"], (params.steps, few))
        if elapsed is None or elapsed_few is None:
            continue
        fixed, step = fixed_cost(params.steps, elapsed, few, elapsed_few)
        part = share(fixed, step, params.steps)
        if part <= WARN_SHARE:
            continue
        enough = steps_for(fixed, step)
        if step <= 0:  # the sweep's steps ran no slower than one: a step here is lost in the runs' noise
            advice = (f"a step at this size is too short to time apart from them ({units.count(few, 'step')} ran "
                      f"as fast as {params.steps}), so give --steps {PAPER_STEPS} or more, the paper's")
        elif enough:
            advice = f"give --steps {enough} or more (under {units.percent(WARN_SHARE)})"
        else:
            advice = f"even --steps {SUGGESTED[-1]} would not bring it under {units.percent(WARN_SHARE)}"
        ctx.console.warn(
            f"{name}: each run's timed region starts and ends in {units.seconds(fixed)} whatever its steps, "
            f"{units.percent(part)} of a run at the METG ({units.seconds(elapsed)} at -iter "
            f"{run['iter']}, {units.count(params.steps, 'step')}): the METG counts it as overhead; {advice}")
