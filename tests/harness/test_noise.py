"""Noise: a run that other processes disturbed is repeated and an undisturbed try counts; a METG
whose repetitions disagree (or that is missing while the runs were disturbed) is marked
unreliable in the table, the report and the store, and `taskbench metg --strict` exits 5 then;
on a quiet machine the plan and the figures are exactly what they were before."""

import dataclasses
import hashlib
import json
import sqlite3
import subprocess
import sys
import time

import pytest

from taskbench import provenance
from taskbench.launch import runner
from taskbench.measure.sweep import campaign as campaign_module
from taskbench.measure.analysis import analyze_runs
from taskbench.errors import (EXIT_ENVIRONMENT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUNS_FAILED,
                              EXIT_UNRELIABLE, EXIT_USAGE)
from taskbench.measure.noise import DISTURBED_CORES, disturbed
from taskbench.measure.metg.estimate import estimate
from taskbench.measure.metg.methods import CurvePoint, metg_of_curve
from taskbench.measure.peak import PeakTable
from taskbench.measure.sweep.params import SweepParams, best_of, run_key
from taskbench.measure.sweep.adaptive import DISTURBED_RETRIES, AdaptivePlanner
from taskbench.registry.external import add_externals
from taskbench.store import Store
from taskbench.store.records import make_record
from taskbench.studies import metg_results
from test_external import FAKE_PORT

PEAK = 25e9
STEPS = 4000
OVERHEAD = {"a": 2e-6, "b": 5e-6}  # seconds of runtime overhead per task of the two systems


def quiet_run(system, iterations, rep, attempt):
    """A run of a quiet machine: up to 6% slower from try to try, and the background load that
    /proc/stat shows there: its tick error, -1 to +1 tick of 10 ms, signed as the harness
    stores it, and never below 0 as a load: a few cores' worth over a run of a few ms (too short
    to judge) and a few hundredths over the long ones."""
    work = 5e-9 * iterations
    slow = 1 + 0.06 * (((iterations * 7 + rep * 13 + attempt * 5) % 11) / 10)
    task = (work + OVERHEAD[system]) * slow
    elapsed = task * STEPS
    wall = elapsed + 0.003
    ticks = 0.01 * ((iterations + rep + attempt) % 3 - 1)
    return {"system": system, "iter": iterations, "rep": rep, "key": run_key(system, iterations, rep, attempt),
            "status": "ok", "cores": 1, "tasks": STEPS, "dependencies": 0,
            "flops_per_second": PEAK * work / task, "granularity_seconds": task,
            "elapsed_seconds": elapsed, "wall_seconds": wall, "background_load": max(0.0, ticks) / wall,
            "background_cpu_seconds": ticks}


def disturb(run, load=1.0, slowdown=2.0):
    """The same run beside other processes using `load` cores: slower, and measured as such."""
    wall = run["wall_seconds"] * slowdown
    return dict(run, background_load=load, background_cpu_seconds=load * wall,
                flops_per_second=run["flops_per_second"] / slowdown,
                granularity_seconds=run["granularity_seconds"] * slowdown,
                elapsed_seconds=run["elapsed_seconds"] * slowdown, wall_seconds=wall)


def peaks():
    return PeakTable("compute_bound", [{"status": "ok", "cores": 1, "flops_per_second": PEAK}])


def drive(params, model):
    """Runs the planner to completion as campaign.run_sweep does; every try, in order."""
    planner = AdaptivePlanner(params, peaks())
    runs = []
    while batch := planner.next_batch():
        while pending := [u for u in batch if planner.wants_another_try(u)]:
            for unit in pending:
                run = model(*unit, planner.attempts(unit))
                runs.append(run)
                planner.add_try(unit, run)
        planner.finish(batch)
    return runs, planner


def analyze(params, runs):
    return analyze_runs({"name": "c", "params": params.to_dict(), "status": "done"}, runs, peaks())


# No repetitions added around the crossings (measure/sweep/settle.py, tested in test_settle.py): the plan is the
# sweep's own, as the harness before them made it.
PARAMS = SweepParams(systems=["a", "b"], reps=3, tries=3, start_iter=1 << 16, threshold=0.5, max_spread=0.1,
                     target_interval=0.0)


# -- a quiet machine: nothing changes -------------------------------------------------------------

# What the harness before this change (git b5b7d50) planned and computed for quiet_run: the key of
# every try in order (130 of them; 25 read more than 0.25 cores, all of them runs too short to
# judge), and METG(50%) per repetition.
BEFORE_KEYS_SHA256 = "5066b6de29cc42f6cf022de8b9e8f40e058d217d66ab3b5ce532cc948eca32ef"
BEFORE_METG = {"a": [4.1624177786232605e-06, 4.012942059540418e-06, 4.093851389684606e-06],
               "b": [1.0128783559316222e-05, 1.0363254830639713e-05, 1.0008657906252792e-05]}
BEFORE_MEDIAN = {"a": 4.093851389684606e-06, "b": 1.0128783559316222e-05}


def test_a_quiet_machine_plans_the_same_runs_and_gets_the_same_metg():
    runs, _ = drive(PARAMS, quiet_run)
    assert len(runs) == 130
    assert sum(r["background_load"] > DISTURBED_CORES for r in runs) == 25  # short runs' ticks
    assert not any(disturbed(r) for r in runs)
    assert hashlib.sha256("\n".join(r["key"] for r in runs).encode()).hexdigest() == BEFORE_KEYS_SHA256
    median = analyze(dataclasses.replace(PARAMS, metg_method="median"), runs)
    analysis = analyze(PARAMS, runs)
    for system, curve in analysis.curves.items():
        assert [v.seconds for v in curve.summary.values] == BEFORE_METG[system]
        assert median.curves[system].summary.seconds == BEFORE_MEDIAN[system]
        # The fit of every run lies among the repetitions' own, its interval around it.
        s = curve.summary
        assert min(BEFORE_METG[system]) <= s.seconds <= max(BEFORE_METG[system]) and s.low <= s.seconds <= s.high
        assert s.reliable and s.warnings == [] and curve.disturbed_points == []


# -- disturbed runs are repeated ------------------------------------------------------------------

def test_disturbed_is_judged_on_runs_long_enough_for_the_ticks():
    run = {"status": "ok", "cores": 1, "elapsed_seconds": 0.5, "background_load": 0.3}
    assert disturbed(run)
    assert not disturbed(dict(run, background_load=0.25))  # above the threshold, not at it
    assert not disturbed(dict(run, elapsed_seconds=0.15))  # one tick is 0.07 cores of error there
    assert not disturbed(dict(run, status="timeout"))  # failures are not noise
    # 16 cores: a tick on each is 0.32 cores of error over 0.5 s; from 1.28 s it is under 0.125.
    assert not disturbed(dict(run, cores=16))
    assert disturbed(dict(run, cores=16, elapsed_seconds=1.3))


def test_the_fastest_undisturbed_try_counts():
    quiet = quiet_run("a", 65536, 0, 0)
    faster_but_disturbed = dict(quiet, flops_per_second=quiet["flops_per_second"] * 1.1, background_load=0.9)
    slower = disturb(quiet)
    assert best_of([faster_but_disturbed, quiet, slower], "compute_bound") is quiet
    # Every try disturbed: the fastest of them, as before.
    assert best_of([slower, faster_but_disturbed], "compute_bound") is faster_but_disturbed
    failed = dict(quiet, status="crashed")
    assert best_of([failed, slower], "compute_bound") is slower
    assert best_of([failed], "compute_bound") is failed


def test_a_disturbed_try_is_repeated_and_the_undisturbed_one_counts():
    def first_try_disturbed(system, iterations, rep, attempt):
        run = quiet_run(system, iterations, rep, attempt)
        return disturb(run) if attempt == 0 else run

    runs, planner = drive(PARAMS, first_try_disturbed)
    again = [r for r in runs if disturbed(r)]
    assert again, "the model disturbs every first try, the long ones can be told"
    for run in again:
        unit = (run["system"], run["iter"], run["rep"])
        tries = planner.tries[unit]
        assert tries[0] is run and len(tries) >= 2  # repeated, the disturbed try kept
        assert not disturbed(planner.results[unit])
        assert planner.results[unit]["flops_per_second"] == max(
            t["flops_per_second"] for t in tries if not disturbed(t))
    # Short runs cannot be judged: they run as many times as planned, no more.
    short = {(r["system"], r["iter"], r["rep"]) for r in runs if r["background_load"] == 1.0 and not disturbed(r)}
    assert short and all(len(planner.tries[u]) == planner._planned(u) for u in short)


def test_a_point_disturbed_in_every_try_runs_a_bounded_number_of_times():
    runs, planner = drive(PARAMS, lambda *unit: disturb(quiet_run(*unit)))
    top = ("a", 1 << 16, 0)  # 0.7 s undisturbed: long enough to judge
    tries = planner.tries[top]
    assert len(tries) == 1 + DISTURBED_RETRIES and all(disturbed(t) for t in tries)
    assert sum(1 for r in runs if (r["system"], r["iter"], r["rep"]) == top) == len(tries)  # every try kept
    assert planner.results[top] is max(tries, key=lambda t: t["flops_per_second"])
    assert not planner.repeats_for_load(top) and not planner.wants_another_try(top)


# -- unreliable METGs ------------------------------------------------------------------------------

def curve(*triples, disturbed_points=()):
    return [CurvePoint(it, g, e, it in disturbed_points) for it, g, e in triples]


def test_repetitions_that_disagree_make_the_interval_wide_and_the_metg_unreliable():
    far = {k: curve((100, 10e-6, 0.9), (10, 1e-6, e)) for k, e in enumerate((0.1, 0.2, 0.3))}
    assert estimate(far, 0.5).half_width > 0.10
    close = {k: curve((100, 10e-6, 0.9), (10, 1e-6, e)) for k, e in enumerate((0.10, 0.11))}
    assert estimate(close, 0.5).half_width < 0.10


def test_no_metg_is_unreliable_only_where_runs_were_disturbed():
    from taskbench.measure.metg.reliability import judge_missing
    never = curve((100, 10e-6, 0.11), (10, 1e-6, 0.05))
    assert judge_missing([metg_of_curve(never, 0.5)] * 2, []) == []  # a system that is just slow
    values = [metg_of_curve(curve((100, 10e-6, 0.11), (10, 1e-6, 0.05), disturbed_points={100}), 0.5),
              metg_of_curve(never, 0.5)]
    assert judge_missing(values, [100]) == ["no METG while other processes shared the machine "
                                            "(-iter 100: 1 run disturbed in every try, in 1 of 2 repetitions)"]


def test_a_disturbed_repetition_makes_the_analysis_unreliable_and_the_study_table_says_so():
    params = SweepParams(systems=["a"], reps=2, tries=1, start_iter=1 << 16, threshold=0.5, max_spread=0.1,
                         target_interval=0.0)

    def rep_one_disturbed(system, iterations, rep, attempt):
        run = quiet_run(system, iterations, rep, attempt)
        return disturb(run, slowdown=1.3) if rep == 1 else run

    runs, _ = drive(params, rep_one_disturbed)
    curve_a = analyze(params, runs).curves["a"]
    assert not curve_a.summary.reliable and "its 95% interval" in curve_a.summary.unreliable[0]
    assert curve_a.disturbed_points and all(rep == 1 for _, rep, _ in curve_a.disturbed_points)
    quiet = analyze(params, drive(params, quiet_run)[0])
    assert quiet.curves["a"].summary.reliable

    study = {"name": "s", "params": {"systems": ["a"], "unavailable": {},
                                     "sweeps": [{"value": 1, "label": "x1", "campaign": "s-x1"},
                                                {"value": 2, "label": "x2", "campaign": "s-x2"}]}}
    result = metg_results.MetgStudyResult(study, {"x1": [analyze(params, runs)], "x2": [quiet]})
    _, rows = metg_results.table(result, "x")
    assert rows[0][1].endswith(" (unreliable)") and "unreliable" not in rows[0][2]
    # No ratio drawn from it, one line why; with allow_unreliable (study --allow-unreliable), marked.
    finding = metg_results.ratio_findings(result, "x")[0]
    assert finding.startswith("a: no ratio: its METG at x 1 is unreliable (its 95% interval ")
    result.allow_unreliable = True
    assert " (unreliable) at x 1, " in metg_results.ratio_findings(result, "x")[0]


# -- end to end: table, progress, report, store, --strict --------------------------------------------

# Long enough at -iter 65536 (0.66 s as the port reports it) for the load to be judged; one try
# per size, so that only load repeats a run.
SWEEP = ["--steps", "1000", "--width", "1", "--start-iter", "65536", "--reps", "2", "--tries", "1",
         "--refine", "1", "--no-trace", "--target-interval", "0"]


@pytest.fixture
def port(tmp_path, monkeypatch):
    """The fake port of test_external, and what /proc/stat would have said about its runs: it
    runs for milliseconds but reports up to 0.66 s, so the real reading would be noise. Runs of
    repetition `disturbed_rep` ran beside other processes, 1.3 times slower: 1.2 cores of them
    beyond the CPUs the one-core run left free (SPARE)."""
    path = tmp_path / "port.py"
    path.write_text(FAKE_PORT)
    state = {"disturbed_rep": None}

    def record(outcome, *, rep, **kw):
        outcome.background_load, outcome.background_cpu_seconds = 0.0, 0.0
        if rep == state["disturbed_rep"] and outcome.ok:
            m = outcome.metrics
            m["elapsed_seconds"] *= 1.3
            m["granularity_seconds"] *= 1.3
            m["flops_per_second"] /= 1.3
            load = 1.2 + SPARE
            outcome.background_load, outcome.background_cpu_seconds = load, load * outcome.wall_seconds
        return make_record(outcome, rep=rep, **kw)

    monkeypatch.setattr(campaign_module, "make_record", record)
    state["external"] = f"port=1:{sys.executable} -S {path} 1"
    return state


SPARE = max(0, provenance.available_cores() - 1)  # the CPUs a one-core run leaves free here


def test_exit_statuses_are_distinct():
    assert EXIT_UNRELIABLE not in {EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_RUNS_FAILED, EXIT_ENVIRONMENT,
                                   EXIT_INTERRUPTED}


def test_quiet_sweep_is_reliable_under_strict(cli, port):
    code, out, err = cli("metg", "--external", port["external"], *SWEEP, "--campaign", "calm", "--strict")
    assert code == 0, err
    assert "unreliable" not in out.lower() and "UNRELIABLE" not in err and "run again" not in err
    con = sqlite3.connect(cli.db)
    results = json.loads(con.execute("SELECT results FROM campaigns WHERE name='calm'").fetchone()[0])
    assert results["systems"]["port"]["reliable"] is True and results["systems"]["port"]["unreliable"] == []
    assert con.execute("SELECT count(*) FROM runs WHERE key LIKE '%/try=1'").fetchone()[0] == 0


def test_disturbed_sweep_is_repeated_marked_unreliable_and_fails_strict(cli, port, tmp_path):
    port["disturbed_rep"] = 1
    code, out, err = cli("metg", "--external", port["external"], *SWEEP, "--campaign", "busy",
                         "--html", "busy.html")
    assert code == 0, err  # without --strict: published, but marked
    row = next(line for line in out.splitlines() if line.lstrip("│ ").startswith("port"))
    assert "(unreliable)" in row and "UNRELIABLE: its 95% interval" in row
    free = f" beyond the {SPARE} CPU{'s' * (SPARE > 1)} it left free" if SPARE else ""
    assert ("port -iter 65536 rep 1: try 2, run again because other processes used "
            f"{1.2 + SPARE:.2f} cores (> 0.25{free}) during the last one") in err
    assert "port: METG UNRELIABLE, not a result: its 95% interval" in err
    # -iter 65536 and 16384 (0.22 s when disturbed) can be judged: two more tries each.
    assert "(4 of them again because other processes disturbed the run)" in err

    con = sqlite3.connect(cli.db)
    # The top size of repetition 1 ran 1 + DISTURBED_RETRIES times, every try stored as disturbed.
    tries = con.execute("SELECT key, background_load, background_cpu_seconds FROM runs WHERE campaign='busy' "
                        "AND iter=65536 AND rep=1 ORDER BY id").fetchall()
    assert [k for k, _, _ in tries] == [run_key("port", 65536, 1, t) for t in range(1 + DISTURBED_RETRIES)]
    assert all(load == 1.2 + SPARE and seconds > 0 for _, load, seconds in tries)
    assert con.execute("SELECT count(*) FROM runs WHERE campaign='busy' AND rep=0 AND key NOT LIKE '%/try=0'"
                       ).fetchone()[0] == 0
    results = json.loads(con.execute("SELECT results FROM campaigns WHERE name='busy'").fetchone()[0])
    port_result = results["systems"]["port"]
    assert port_result["reliable"] is False and port_result["unreliable"][0].startswith("its 95% interval")
    assert port_result["interval_half_width"] > 0.1 and port_result["disturbed_points"] >= 1
    low, high = port_result["interval_seconds"]
    assert low < port_result["metg_seconds"] < high

    page = (tmp_path / "busy.html").read_text()
    assert "port: METG UNRELIABLE, not a result: its 95% interval" in page and "(unreliable)" in page

    # The same campaign again under --strict: nothing runs twice, and the exit status says it.
    code, _, err = cli("-q", "metg", "--resume", "busy", "--strict")
    assert code == EXIT_UNRELIABLE, err
    assert f"--strict: 1 unreliable METG (port): exit status {EXIT_UNRELIABLE}" in err
    code, out, _ = cli("-q", "metg", "--external", port["external"], *SWEEP, "--campaign", "busy2", "--strict")
    assert code == EXIT_UNRELIABLE
    tsv = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    float(tsv["port"][2])  # the METG column stays a number for scripts; the notes say it
    assert tsv["port"][-1].startswith("UNRELIABLE: its 95% interval")

    code, out, _ = cli("export", "--json", "-", "--campaigns")
    exported = json.loads(out)
    assert {c["name"]: c["results"]["systems"]["port"]["reliable"] for c in exported} == \
        {"busy": False, "busy2": False}


# -- the store and the measurement -----------------------------------------------------------------

def test_an_earlier_store_gains_the_new_columns(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)  # the tables as an earlier harness wrote them, less what is not needed
    con.executescript("""
        CREATE TABLE campaigns (name TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL,
          created TEXT NOT NULL, finished TEXT, params TEXT NOT NULL, machine_id TEXT NOT NULL,
          machine TEXT NOT NULL, git_revision TEXT, harness TEXT);
        CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, campaign TEXT NOT NULL, key TEXT NOT NULL,
          system TEXT NOT NULL, kernel TEXT, status TEXT NOT NULL, background_load REAL, UNIQUE (campaign, key));
        INSERT INTO campaigns (name, kind, status, created, params, machine_id, machine)
          VALUES ('old', 'metg', 'done', 'then', '{}', 'm', '{}');
        PRAGMA user_version=1;
        """)
    con.close()
    store = Store(path)
    assert store.campaign("old")["results"] is None
    store.set_campaign_results("old", {"systems": {"x": {"reliable": False}}})
    assert store.campaign("old")["results"] == {"systems": {"x": {"reliable": False}}}
    assert store.add_run({"campaign": "old", "key": "k", "system": "x", "status": "ok",
                          "background_load": 0.5, "background_cpu_seconds": -0.01})["background_cpu_seconds"] == -0.01
    store.close()


def test_background_load_counts_other_processes(tmp_path):
    """A process spinning beside a run that sleeps: the run's record shows it (a busy machine
    only adds to it); the run's own CPU and the harness's are not counted."""
    script = tmp_path / "sleeper.sh"
    script.write_text("#!/bin/sh\nsleep 0.6\necho 'Total Tasks 1'\necho 'Total FLOPs 1'\necho 'Total Bytes 0'\n"
                      "echo 'Elapsed Time 6.0e-01 seconds'\n")
    script.chmod(0o755)

    registry = type("Registry", (), {"systems": {}})()
    add_externals(registry, {"sleeper": {"cores": 1, "command": str(script)}})
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.1)
        outcome = runner.run_once(registry.systems["sleeper"], [], timeout=10)
    finally:
        spinner.kill()
        spinner.wait()
    assert outcome.ok, outcome.reason
    assert outcome.background_load >= 0.5
    assert outcome.background_cpu_seconds == pytest.approx(outcome.background_load * outcome.wall_seconds)
