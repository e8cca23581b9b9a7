"""Runs one system once, with a timeout, and turns whatever happened into a RunOutcome.

A run that crashes, fails validation or times out is not an exception here: it is an outcome
with a status and a one-line reason, stored like any other (failures are data).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import tempfile
import time
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from taskbench import provenance
from taskbench.errors import EXIT_ENVIRONMENT, UserError
from taskbench.launch import MPI_LAUNCHERS, LaunchOptions, command
from taskbench.process import failed_rank_watch, guard, leftovers, tied
from taskbench.hosts import facts as host_facts
from taskbench.hosts import slurm
from taskbench.launch.diagnosis import lost_host, rank_death, signal_name
from taskbench.launch.external import missing_summary
from taskbench.hosts.description import Cluster
from taskbench.process.rank_watch import WATCH_VARIABLE, RankWatch

# Exit codes of the systems (docs/spec.md §4, §3).
SYSTEM_EXIT_BAD_FLAGS = 2
SYSTEM_EXIT_VALIDATION = 3
TAIL_CHARS = 4000
# Lines our systems print about what went wrong start with this (the core's one-line errors).
SYSTEM_MESSAGE_PREFIX = "taskbench: "
# After a run was killed, how long to wait for its pipes to close before giving up on them.
DRAIN_SECONDS = 5.0
# A run inside a Slurm job ends this long before the job's time limit, so that its end is stored
# before Slurm's SIGTERM comes.
JOB_END_MARGIN_SECONDS = 10.0

# The summary lines every system prints (docs/spec.md §5): the fallback for binaries without -json.
_SUMMARY_KEYS = {
    "Total Tasks": ("tasks", int),
    "Total Dependencies": ("dependencies", int),
    "Total FLOPs": ("flops", int),
    "Total Bytes": ("bytes", int),
    "Elapsed Time": ("elapsed_seconds", float),
    "FLOP/s": ("flops_per_second", float),
    "B/s": ("bytes_per_second", float),
}


@dataclass
class RunOutcome:
    status: str  # ok | bad_flags | validation | crashed | timeout | failed | no_report | launch_error
    reason: str
    argv: list[str]
    set_env: dict[str, str]
    exit_code: int | None = None
    wall_seconds: float = 0.0
    started_at: str = ""
    report: dict | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    ranks: int = 1
    threads_per_rank: int | None = None
    metrics: dict = field(default_factory=dict)
    # Cores' worth of CPU that other processes used while this run ran (10 ms resolution, so
    # only meaningful for runs of a few hundred ms or more): a noisy neighbour shows up here.
    background_load: float | None = None
    # The same as CPU seconds, signed: a reading below zero is tick error, which cancels out
    # when many short runs are summed (background_load, never below 0, would not).
    background_cpu_seconds: float | None = None
    # --hosts: each host as it described itself (host_facts.described), the run's provenance.
    hosts: tuple[dict, ...] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _own_cpu_seconds() -> float:
    """CPU time of the harness and of its finished children: not other processes' load."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return provenance.children_cpu_seconds() + me.ru_utime + me.ru_stime


def parse_summary(stdout: str) -> dict:
    """Figures from the plain-text summary, for binaries that cannot write a JSON report."""
    figures = {}
    for line in stdout.splitlines():
        for label, (key, kind) in _SUMMARY_KEYS.items():
            if line.startswith(label + " "):
                try:
                    figures[key] = kind(line[len(label):].split()[0])
                except (ValueError, IndexError):
                    pass
    return figures


def metrics_from(report: dict | None, summary: dict) -> dict:
    """The figures the harness stores in columns, from the JSON report or the summary lines."""
    if report:
        totals = report.get("totals", {})
        parallelism = report.get("parallelism", {})
        m = {
            "tasks": totals.get("tasks"),
            "dependencies": totals.get("dependencies"),
            "flops": totals.get("flops"),
            "bytes": totals.get("bytes"),
            "nodes": totals.get("nodes"),
            "elapsed_seconds": report.get("elapsed_seconds"),
            "flops_per_second": report.get("flops_per_second"),
            "bytes_per_second": report.get("bytes_per_second"),
            "cores": parallelism.get("cores"),
            "granularity_seconds": report.get("task_granularity_seconds"),
        }
    else:
        m = dict(summary)
        m.setdefault("cores", None)
        m["granularity_seconds"] = None
        # FLOP/s and B/s lines are optional (not every port prints them): totals / elapsed.
        for total, rate in (("flops", "flops_per_second"), ("bytes", "bytes_per_second")):
            if m.get(rate) is None and m.get(total) is not None and m.get("elapsed_seconds"):
                m[rate] = m[total] / m["elapsed_seconds"]
    if m.get("granularity_seconds") is None and m.get("tasks") and m.get("elapsed_seconds") is not None:
        m["granularity_seconds"] = m["elapsed_seconds"] * (m.get("cores") or 1) / m["tasks"]
    return m


def _is_banner(line: str) -> bool:
    return not line.strip("-=*_# ")


def _last_line(text: str) -> str:
    """The line that says what went wrong: our systems print one line, the last; launchers
    (mpirun) print a block between banner lines, whose first line is the headline."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if any(_is_banner(l) for l in lines):
        first = next(i for i, l in enumerate(lines) if _is_banner(l))
        headline = next((l for l in lines[first + 1:] if not _is_banner(l)), "")
        if headline:
            return headline[:500]
    lines = [l for l in lines if not _is_banner(l)]
    return lines[-1][:500] if lines else ""


def _system_message(text: str) -> str:
    """The system's own one-line error (the last such line: ranks that fail after the first
    repeat it), or ""."""
    lines = [l.strip() for l in text.splitlines() if l.strip().startswith(SYSTEM_MESSAGE_PREFIX)]
    return lines[-1][:500] if lines else ""


def _classify(code: int, stderr: str, stdout: str = "", watch: RankWatch | None = None,
              cluster: Cluster | None = None) -> tuple[str, str]:
    own = _system_message(stderr)
    line = own or _last_line(stderr)
    if code < 0:
        return "crashed", f"killed by {signal_name(-code)}" + (f": {line}" if line else "")
    if "validation failed" in stderr or code == SYSTEM_EXIT_VALIDATION:
        return "validation", line or "validation failed"
    if code == SYSTEM_EXIT_BAD_FLAGS:
        return "bad_flags", line or "the system rejected its flags"
    # A launcher whose rank died by a signal: name the rank and the signal, not the launcher's
    # own exit code (Hydra and Open MPI print their report on either stream).
    pids = {rank: pid for pid, rank in watch.ranks.items()} if watch is not None else None
    death = rank_death(stderr + "\n" + stdout, watch.first_to_end() if watch is not None else None, pids)
    if death is not None:
        return "crashed", death.describe() + (f": {own}" if own else "")
    lost = lost_host(stderr + "\n" + stdout, cluster)
    if lost is not None:
        return "failed", lost
    return "failed", f"exit code {code}" + (f": {line}" if line else "")


def _death_signal(is_mpi: bool) -> int:
    """What the kernel sends the run when the harness dies: a launcher gets SIGTERM, so that it
    takes down its ranks (remote ones too; the guard kills the local ones at once); a plain
    binary gets SIGKILL."""
    return signal.SIGTERM if is_mpi else signal.SIGKILL


def _within_job_limit(timeout: float | None) -> tuple[float | None, str]:
    """The run's timeout, cut short where the Slurm job the harness runs in ends first, with the
    reason a run ended by it is given; "" when the job's limit is not the nearer."""
    left = slurm.seconds_left()
    if left is None:
        return timeout, ""
    room = left - JOB_END_MARGIN_SECONDS
    job = os.environ.get("SLURM_JOB_ID", "")
    if room <= 0:
        raise UserError(f"Slurm job {job} reaches its time limit in {max(0, left):.0f} s: no run starts now "
                        "(stored runs are kept; `--resume` continues a sweep in a new job)", EXIT_ENVIRONMENT)
    if timeout is not None and timeout <= room:
        return timeout, ""
    return room, (f"stopped {JOB_END_MARGIN_SECONDS:g} s before Slurm job {job}'s time limit, after {room:.0f} s "
                  "(a result cut short by the job is no result)")


def run_once(system, flags: list[str], options: LaunchOptions | None = None,
             timeout: float | None = None) -> RunOutcome:
    options = options or LaunchOptions()
    timeout, job_limit = _within_job_limit(timeout)
    with tempfile.TemporaryDirectory(prefix="taskbench-run-") as tmp:
        report_path = Path(tmp) / "report.json"
        # An external command (another suite's port) does not know -json: its summary lines count.
        json_flags = [] if system.external else ["-json", str(report_path)]
        launch = command(system, [*flags, *json_flags], replace(options, run_dir=Path(tmp)))
        is_mpi = system.launcher in MPI_LAUNCHERS  # --launcher picks only an MPI system's launcher
        # Not in set_env: neither is provenance, and both change with every run. The launch's
        # marker finds its processes at a timeout; the harness's, when the harness is gone.
        marker = leftovers.new_marker()
        env = dict(launch.env, **leftovers.KEEP_ENVIRON, **{leftovers.MARKER_VARIABLE: marker})
        harness_marker = guard.harness_marker()
        if harness_marker:
            env[guard.HARNESS_MARK_VARIABLE] = harness_marker
        watch = RankWatch(Path(tmp)) if is_mpi else None
        if watch is not None:
            env[WATCH_VARIABLE] = str(watch.path)
        try:
            outcome = _run(launch, env, marker, watch, is_mpi, timeout, report_path, options.cluster)
            if outcome.status == "timeout" and job_limit:
                outcome.reason = job_limit
        finally:
            if watch is not None:
                watch.close()
    if options.simulation is not None:  # simulated time: other processes cannot slow it down
        outcome.background_load = outcome.background_cpu_seconds = None
    if system.external:
        _count_external(outcome, system.cores)
    if options.cluster is not None:
        outcome.hosts = host_facts.described(options.cluster)
    return outcome


def _count_external(outcome: RunOutcome, cores: int) -> None:
    """An external command's figures come from its summary lines alone: all four required
    lines or a clear failure; its declared cores make its task granularity."""
    missing = missing_summary(outcome.metrics)
    if missing and outcome.status in ("ok", "no_report"):
        outcome.status = "no_report"
        outcome.reason = (f"exit code 0 but no Task Bench summary line {', '.join(missing)} in its output "
                          "(an external command must print the original summary lines)")
    outcome.metrics["cores"] = cores
    outcome.threads_per_rank = None
    tasks, elapsed = outcome.metrics.get("tasks"), outcome.metrics.get("elapsed_seconds")
    outcome.metrics["granularity_seconds"] = elapsed * cores / tasks if tasks and elapsed is not None else None


def _run(launch, env: dict, marker: str, watch: RankWatch | None, is_mpi: bool,
         timeout: float | None, report_path: Path, cluster: Cluster | None = None) -> RunOutcome:
    """Starts the launch, waits for it (or kills it at the timeout) and classifies the end."""
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    outcome = RunOutcome("ok", "", launch.argv, launch.set_env, started_at=started_at,
                         ranks=launch.ranks, threads_per_rank=launch.threads_per_rank)
    busy_before, own_before = provenance.cpu_busy_seconds(), _own_cpu_seconds()
    start = time.perf_counter()
    try:
        # A session of its own, so a timeout can kill its process group; tied to the
        # harness, so that not even a SIGKILLed harness leaves it running (process/tied.py).
        proc = tied.popen(launch.argv, _death_signal(is_mpi), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", start_new_session=True)
    except OSError as exc:
        outcome.status, outcome.reason = "launch_error", f"cannot start {launch.argv[0]}: {exc.strerror}"
        return outcome
    if watch is not None:
        watch.start()
    verdict = None  # "timeout", or "validation" for a launch ended after a rank's validation line
    try:
        if cluster is None:
            stdout, stderr = proc.communicate(timeout=timeout)
        else:  # a launcher across hosts may not end after a rank failed (process/failed_rank_watch.py)
            with slurm.NodeWatch(cluster) if slurm.is_allocation(cluster) else nullcontext() as nodes:
                stdout, stderr, verdict = failed_rank_watch.communicate(
                    proc, timeout, lambda: _kill_launch(proc, marker), nodes.lost if nodes else lambda: None)
    except subprocess.TimeoutExpired:
        _kill_launch(proc, marker)
        stdout, stderr = _drain(proc)
        verdict = "timeout"
    except BaseException:
        # Ctrl-C or SIGTERM of the harness: leave no orphaned benchmark behind.
        _kill_launch(proc, marker)
        raise
    outcome.wall_seconds = time.perf_counter() - start
    if verdict == "timeout":
        outcome.status, outcome.reason = "timeout", f"exceeded the {timeout:g} s timeout"
    # Launchers move ranks out of the process group; any that outlived the launch go now.
    stray = leftovers.kill_all(leftovers.MARKER_VARIABLE, marker)
    busy_after = provenance.cpu_busy_seconds()
    if busy_before is not None and busy_after is not None and outcome.wall_seconds > 0:
        own = _own_cpu_seconds() - own_before
        outcome.background_cpu_seconds = busy_after - busy_before - own
        outcome.background_load = max(0.0, outcome.background_cpu_seconds) / outcome.wall_seconds
    outcome.exit_code = proc.returncode
    outcome.stdout_tail = stdout[-TAIL_CHARS:]
    outcome.stderr_tail = stderr[-TAIL_CHARS:]
    if verdict == "validation":
        outcome.status, outcome.reason = "validation", _system_message(stderr)
        outcome.exit_code = SYSTEM_EXIT_VALIDATION
    elif verdict not in (None, "timeout"):  # a host lost (slurm.NodeWatch)
        outcome.status, outcome.reason = "failed", verdict
    elif outcome.status != "timeout" and proc.returncode != 0:
        if watch is not None:
            watch.stop()  # the launch has ended: every rank's end is known
        code, said = proc.returncode, stderr
        if launch.shell_status and code > 128:
            code = 128 - code  # a signal's number, negative, as a program killed by it
            # without the shell's own line about it ("Killed"): not the program's words
            said = "\n".join(line for line in stderr.splitlines() if line.strip() != signal.strsignal(-code))
        outcome.status, outcome.reason = _classify(code, said, stdout, watch, cluster)
        if is_mpi and outcome.status == "validation":
            # A rank printed the core's validation line and ended with its status 3; the
            # launcher's own code depends on the order its clean-up saw the ranks end (Hydra
            # returns the lowest rank's status: measured under load, 9 for "Exit codes: 9,768",
            # the SIGKILL it sent rank 0, and 1 for "0,1"). The run's status is the system's.
            outcome.exit_code = SYSTEM_EXIT_VALIDATION
    if stray and outcome.status != "timeout":
        outcome.reason += f"{'; ' if outcome.reason else ''}{stray} process(es) of the launch outlived it (killed)"
    if report_path.is_file():
        try:
            outcome.report = json.loads(report_path.read_text())
        except ValueError:
            outcome.report = None
    summary = parse_summary(stdout)
    outcome.metrics = metrics_from(outcome.report, summary)
    if outcome.ok and outcome.report is None and "elapsed_seconds" not in summary:
        outcome.status, outcome.reason = "no_report", "exit code 0 but neither a JSON report nor summary lines"
    return outcome


def _kill_launch(proc: subprocess.Popen, marker: str) -> None:
    """SIGKILL to the launch's process group, then to every process that carries its marker
    (ranks that a launcher moved to groups or sessions of their own)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    leftovers.kill_all(leftovers.MARKER_VARIABLE, marker)


def _drain(proc: subprocess.Popen) -> tuple[str, str]:
    """What a killed run printed; never waits forever (a process we could not find may hold
    the pipes open)."""
    try:
        return proc.communicate(timeout=DRAIN_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        proc.wait()
        return "", ""
