"""Was a stored run disturbed? Whether other processes took CPU from it while it ran
(docs/harness.md, "Noise"), from its background load, the cores it used and those its machine
left free. One judgement that the sweep's plan, the campaign, the analysis, the peak, a study's
retries and the regression gate all ask; the runner only measures the load (RunOutcome). And the
warning under a campaign or study whose runs, on average, shared the machine (warn_if_noisy)."""

from __future__ import annotations

# A run is disturbed when other processes used more than DISTURBED_CORES cores on average while
# it ran: a quarter of a core taken from somewhere, which a run of every core feels at once (a
# timestep waits for its slowest thread). The reading comes from /proc/stat, in 10 ms ticks
# (TICK_SECONDS), each core's count off by up to one tick: it is judged only on runs long enough
# for that error, on every core the run uses, to stay under half the threshold (0.16 s on 2
# cores, 1.3 s on 16), and never under MEASURABLE_SECONDS, the floor the studies always used.
DISTURBED_CORES = 0.25
TICK_SECONDS = 0.01
MEASURABLE_SECONDS = 0.2


def measurable(run: dict) -> bool:
    """Whether the run lasted long enough for its background load to mean something. Judged
    on the measured part, not the wall time: an MPI launcher's start-up makes a 1 ms run last
    0.3 s."""
    shortest = max(MEASURABLE_SECONDS, 2 * TICK_SECONDS * (run.get("cores") or 1) / DISTURBED_CORES)
    return (run.get("elapsed_seconds") or 0) >= shortest


def spare_cores(run: dict) -> int:
    """The CPUs of the machine the run left free (its machine record's available CPUs less the
    cores it used): other processes there take nothing from it. 0 where not known."""
    cpus = (run.get("machine") or {}).get("available_cpus")
    return max(0, cpus - (run.get("cores") or 1)) if isinstance(cpus, int) else 0


def disturbed(run: dict) -> bool:
    """Whether other processes took CPU from this stored run: more than DISTURBED_CORES beyond the
    cores it left free (DISTURBED_CORES). A failed run is not disturbed: failures are the
    system's, and are not repeated."""
    return (run.get("status") == "ok" and measurable(run)
            and (run.get("background_load") or 0) > DISTURBED_CORES + spare_cores(run))


BUSY_BACKGROUND = DISTURBED_CORES  # a campaign's average load above which its figures are called noisy


def warn_if_noisy(console, background: float | None, what: str) -> None:
    """A campaign or study whose runs shared the machine: its figures say less than they seem."""
    if background is not None and background > BUSY_BACKGROUND:
        console.warn(f"other processes used {background:.2f} cores on average while this {what} ran: its figures "
                     "are noisy")
