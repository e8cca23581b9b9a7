"""A newcomer's path through the README, with the mistakes people make on it: a mistyped
system, command, study or flag, the harness's `--steps` given to a system, flags that contradict
the sweep's options, a store in a folder of its own, an interrupted sweep continued from its hint.
Each mistake is one line with a way forward and exit status 2; nothing is stored for it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from taskbench import cli
from taskbench.measure.sweep import campaign

SMALL = ["--steps", "10", "--width", "1", "--start-iter", "4096", "--reps", "1", "--tries", "1", "--refine", "0"]


def one_line(err: str) -> str:
    """The error line: the last line of stderr, with its single `taskbench:` prefix."""
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith("taskbench: ") and not lines[-1].startswith("taskbench: taskbench"), err
    return lines[-1]


@pytest.mark.parametrize("args, says", [
    (["run", "opnemp_for"], "unknown system 'opnemp_for'; did you mean openmp_for? (`taskbench systems` lists the "),
    (["sytems"], "unknown command 'sytems'; did you mean systems? (`taskbench -h` lists them)"),
    (["study", "discovry"], "unknown study 'discovry'; did you mean discovery? "),
    (["metg", "serial", "--stepz", "100"], "metg: unrecognized arguments: --stepz 100; did you mean --steps?"),
    (["--dbb", "x.db", "campaigns"], "unrecognized arguments: --dbb; did you mean --db?"),
    (["run", "serial", "--steps", "10"], "Task Bench's flags take one dash: -steps"),
    (["metg", "serial", "--flags", "-steps 50", "--steps", "100"],
     "--flags: -steps is the sweep's own: give --steps instead"),
])
def test_a_mistake_is_one_line_with_a_way_forward(cli, bin_dir, args, says):
    code, out, err = cli(*args)
    assert code == 2, (out, err)
    assert says in one_line(err)
    assert len(one_line(err)) < 300  # a hint, not the list of every name
    if cli.db.exists():
        assert sqlite3.connect(cli.db).execute("SELECT count(*) FROM runs").fetchone()[0] == 0


def test_a_flag_mistake_is_one_line_that_points_at_its_commands_usage(cli):
    code, _, err = cli("metg", "serial", "--stepz", "100")
    assert code == 2 and err.count("\n") == 1 and err.endswith("(`taskbench metg -h` shows the usage)\n"), err


@pytest.mark.parametrize("args, says", [
    # item 4: a number no run can take is refused like every other (it was stored as a timeout)
    (["run", "serial", "-steps", "20", "--timeout", "-1"], "run: --timeout -1: must be positive"),
    (["metg", "serial", "--steps", "x"], "metg: --steps x: not a whole number"),
    (["metg", "serial", "--threshold", "100"], "metg: --threshold 100: must be a percentage below 100"),
    (["peak", "--timeout", "0"], "peak: --timeout 0: must be positive"),
    (["study", "scaling", "--retries", "-1"], "study: --retries -1: must be 0 or more"),
    # item 6: patterns and kernels get their "did you mean" too, and a dashed value its form
    (["metg", "serial", "--pattern", "stencil1d"], "invalid value 'stencil1d'; did you mean stencil_1d? (one of "),
    (["run", "serial", "-kernel", "emtpy"], "-kernel: invalid value 'emtpy'; did you mean empty? (one of "),
    (["metg", "serial", "--kernel", "compute_bond"], "unknown kernel 'compute_bond'; did you mean compute_bound?"),
    (["metg", "serial", "--flags", "-output"], "a value that starts with a dash goes as --flags=VALUE"),
    # item 5: each of these once left an empty store behind
    (["run", "serial", "-stepz", "3"], "serial rejects its flags: unknown flag '-stepz'"),
    (["metg", "seral"], "unknown system 'seral'; did you mean serial?"),
    (["metg"], "name at least one system"),
    # item 7: one prefix
    (["hosts"], "taskbench: hosts: no cluster: give --hosts FILE"),
])
def test_each_mistake_is_one_line_exit_2_and_leaves_no_store(cli, bin_dir, monkeypatch, args, says):
    monkeypatch.delenv("TASKBENCH_HOSTS", raising=False)
    code, out, err = cli(*args)
    assert code == 2 and err.count("\n") == 1 and says in one_line(err), (out, err)
    assert len(one_line(err)) < 300
    assert not cli.db.exists() and not list(cli.db.parent.glob("tb.db*"))


def test_an_interrupted_run_leaves_no_store_nor_the_folders_made_for_it(cli, bin_dir, tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(campaign, "run_once", interrupted)
    db = tmp_path / "new" / "folder" / "x.db"
    code, _, err = cli("--db", str(db), "run", "serial", "-steps", "3")
    assert code == 130 and "nothing was stored" in err
    assert not (tmp_path / "new").exists()


def test_a_store_with_a_campaign_is_kept(cli, bin_dir):
    assert cli("run", "serial", "-steps", "3")[0] == 0 and cli.db.exists()
    assert cli("run", "serial", "-stepz", "3")[0] == 2 and cli.db.exists()  # not removed: not made by it


READ_ONLY = "/proc/report.html"  # nothing may be created there, even by root


@pytest.mark.parametrize("args, says", [
    (["report", "--html", READ_ONLY], f"--html {READ_ONLY}: cannot write it: "),
    (["report", "--html", "."], "--html .: is a folder; give a file's name (e.g. taskbench-report.html)"),
    (["export", "--csv", READ_ONLY], f"--csv {READ_ONLY}: cannot write it: "),
    # checked before the sweep: never a sweep lost to its report
    (["metg", "serial", *SMALL, "--html", READ_ONLY], f"--html {READ_ONLY}: cannot write it: "),
    (["study", "scaling", "--quick", "--html", READ_ONLY], f"--html {READ_ONLY}: cannot write it: "),
])
def test_an_output_that_cannot_be_written_is_one_line_before_any_run(cli, bin_dir, args, says):
    if args[0] in ("report", "export"):
        assert cli("run", "serial", "-steps", "3")[0] == 0
    before = sqlite3.connect(cli.db).execute("SELECT count(*) FROM runs").fetchone()[0] if cli.db.exists() else 0
    code, out, err = cli(*args)
    assert code == 2 and err.count("\n") == 1 and says in one_line(err), (out, err)
    after = sqlite3.connect(cli.db).execute("SELECT count(*) FROM runs").fetchone()[0] if cli.db.exists() else 0
    assert after == before


def test_a_report_whose_figures_folder_is_a_file_is_one_line(cli, bin_dir, tmp_path):
    assert cli("run", "serial", "-steps", "3")[0] == 0
    (tmp_path / "r_figures").write_text("")
    code, _, err = cli("report", "--html", str(tmp_path / "r.html"))
    assert code == 2 and f"its figures go to {tmp_path / 'r_figures'}, which is a file" in one_line(err)


def test_stores_and_files_in_folders_that_do_not_exist_yet(cli, bin_dir, tmp_path):
    db = tmp_path / "new" / "folder" / "y.db"
    code, _, err = cli("--db", str(db), "run", "serial", "-steps", "3")
    assert code == 0 and db.exists() and f"made the folder {tmp_path / 'new'}" in err
    for option, path in (("--csv", tmp_path / "out" / "x.csv"), ("--json", tmp_path / "out2" / "x.json")):
        code, _, err = cli("--db", str(db), "export", option, str(path))
        assert code == 0 and path.exists() and "made the folder" in err
    html = tmp_path / "rep" / "x.html"
    code, _, err = cli("--db", str(db), "report", "--html", str(html))
    assert code == 0 and html.exists() and "made the folder" in err


def test_an_interrupted_sweeps_hint_names_its_store_and_works_as_printed(cli, bin_dir, tmp_path, monkeypatch):
    db = tmp_path / "mine.db"
    real = campaign.run_sweep

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(campaign, "run_sweep", interrupted)
    code, _, err = cli("--db", str(db), "metg", "serial", *SMALL)
    assert code == 130
    hint = one_line(err).split("`")[1]
    assert hint.startswith(f"taskbench --db {shlex.quote(str(db))} metg --resume metg-"), hint
    monkeypatch.setattr(campaign, "run_sweep", real)
    # Copied as printed (but the program's name), it continues that campaign in that store.
    code, out, err = cli(*shlex.split(hint)[1:], "-q")
    assert code == 0, err
    assert not (tmp_path / "taskbench.db").exists()


def test_quiet_run_prints_raw_numbers(cli, bin_dir):
    code, out, _ = cli("-q", "run", "serial", "-steps", "3")
    assert code == 0
    rows = dict(line.split("\t", 1) for line in out.splitlines()[1:])
    assert float(rows["elapsed"]) > 0 and float(rows["task granularity"]) > 0


@pytest.mark.parametrize("command", ["", *cli.build_parser().commands])  # a new command is covered too
def test_every_command_prints_its_help(command, capsys):
    """The first thing a newcomer types: argparse formats help with %, so a bare percent sign in
    any option's help ends it in a traceback (METG(50%) did, in `taskbench --help`)."""
    with pytest.raises(SystemExit) as done:
        cli.main([*([command] if command else []), "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: taskbench") and (command in out)


@pytest.mark.parametrize("interrupted", ["at the third run", "after the last run, before the floor"])
def test_a_resumed_campaign_keeps_the_probes_its_start_measured(cli, bin_dir, monkeypatch, interrupted):
    """Ctrl-C, then the printed --resume: the placement probes and the floor are the start's and
    the resume's together, so the floor is the lowest of all of them (a resume on a slower
    placement once made "below the no-runtime floor" lines of its own); a resume with no run
    left still measures and records the floor."""
    if not (bin_dir / "native").is_file():
        pytest.skip("native is not built")
    where = "execute_one" if interrupted.startswith("at") else "check_floor"
    real, calls = getattr(campaign, where), []

    def interrupt(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3 or where == "check_floor":  # a sweep has at least 2 sizes x 2 reps
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(campaign, where, interrupt)
    sweep = ["metg", "native", "--steps", "50", "--width", "2", "--start-iter", "4096", "--reps", "2", "--tries", "1",
             "--refine", "0", "--target-interval", "0", "--no-trace", "--campaign", "cut"]
    assert cli(*sweep)[0] == 130
    con = sqlite3.connect(cli.db)
    start = json.loads(con.execute("SELECT machine FROM campaigns").fetchone()[0])["placement_probes"]
    assert start and start[0]["after_run_id"] == 0  # the probe before the first run
    monkeypatch.setattr(campaign, where, real)
    if where == "check_floor":  # as if it stopped before the floor was stored
        machine = json.loads(con.execute("SELECT machine FROM campaigns").fetchone()[0])
        del machine["no_runtime_floor"]
        con.execute("UPDATE campaigns SET machine=?", (json.dumps(machine),))
        con.commit()
        start = machine["placement_probes"]
    code, _, err = cli("metg", "--resume", "cut", "-q")
    assert code in (0, 3, 5), err
    machine = json.loads(con.execute("SELECT machine FROM campaigns").fetchone()[0])
    probes = machine["placement_probes"]
    assert probes[:len(start)] == start and len(probes) > len(start)
    floor = machine["no_runtime_floor"]
    assert floor["probes"] == len(probes)
    assert floor["no_runtime_row_ns"] == min(p["no_runtime_row_ns"] for p in probes)


def test_quiet_tables_are_raw_numbers(cli, bin_dir):
    sweep = ["-q", "metg", "serial", *SMALL, "--no-trace", "--target-interval", "0"]
    assert cli(*sweep, "--campaign", "a")[0] in (0, 5) and cli(*sweep, "--campaign", "b")[0] in (0, 5)
    code, out, err = cli("-q", "metg", "--resume", "a")
    rows = [dict(zip(out.splitlines()[0].split("\t"), line.split("\t"))) for line in out.splitlines()[1:]]
    assert rows[0]["reps"] == "1" and rows[0]["added reps"] == "0" and float(rows[0]["METG(50%)"]) > 0
    assert rows[0]["interval low"] == ""  # one repetition: no interval, and no figure made up for it
    code, out, err = cli("-q", "compare", "a", "b", "--allow-unreliable")
    assert code == 0, err
    row = dict(zip(out.splitlines()[0].split("\t"), out.splitlines()[1].split("\t")))
    assert float(row["METG(50%) A"]) > 0 and float(row["B/A"]) == pytest.approx(
        float(row["METG(50%) B"]) / float(row["METG(50%) A"]))
    code, out, _ = cli("-q", "campaigns")
    metg_cell = out.splitlines()[1].split("\t")[-1]
    assert float(metg_cell.split()[1]) > 0, metg_cell


def test_the_defaults_follow_the_data(cli):
    # reference: the radix data set's pattern is nearest; the communication one's 4 graphs
    code, out, err = cli("-q", "reference", "--data", "radix")
    assert code == 0 and out.splitlines()[0].startswith("system\tpublished as\tits port here\tradix 0"), err
    code, out, err = cli("reference", "--data", "communication")
    assert code == 0 and "spread, 4 graphs" in err, err
    # predict from the paper's Cori: its 32 cores per node, unless told otherwise
    args = ["-q", "predict", "--reference-system", "MPI", "--work", "100", "--tasks-per-core", "1000"]
    code, out, err = cli(*args)
    assert code == 0, err
    assert out.splitlines()[1].split("\t")[1] == "32"  # 1 node: 32 cores
    code, out, _ = cli(*args, "--cores-per-node", "8")
    assert out.splitlines()[1].split("\t")[1] == "8"


def test_systems_count_an_mpi_systems_cores_as_its_run_does(cli, bin_dir):
    code, out, _ = cli("-q", "systems")
    rows = {line.split("\t")[0]: dict(zip(out.splitlines()[0].split("\t"), line.split("\t")))
            for line in out.splitlines()[1:]}
    mpi = rows["mpi_p2p"]
    ranks = re.search(r"(\d+) ranks x (\d+)", mpi["launcher"])
    assert int(mpi["cores"]) == int(ranks.group(1)) * int(ranks.group(2))


# Issue 61, "the frictions of a first afternoon": numbers users type (item 4), no silent surprises
# (item 5), and messages that say what is true. Each of these failed before its change.

def _runs(db) -> int:
    return sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0] if db.exists() else 0


def test_radix_0_is_taken_as_the_core_takes_it(cli, bin_dir):
    """Radix 0 (no dependencies) is the paper's Fig. 10 first point and the core's lowest -radix:
    the harness took only positive ones, so docs/harness.md's own radix loop failed at once."""
    code, _, err = cli("-q", "metg", "serial", "--pattern", "nearest", "--radix", "0", *SMALL, "--no-trace",
                       "--campaign", "r0")
    assert code in (0, 5), err
    con = sqlite3.connect(cli.db)
    assert json.loads(con.execute("SELECT params FROM campaigns WHERE name='r0'").fetchone()[0])["radix"] == 0
    assert {row[0] for row in con.execute("SELECT radix FROM runs WHERE campaign='r0'")} == {0}
    assert con.execute("SELECT count(*) FROM runs WHERE campaign='r0' AND dependencies != 0").fetchone()[0] == 0


@pytest.mark.parametrize("options, says", [
    (["--radix", "5", "--width", "2"], "--radix 5 needs a width of 5 or more, and the sweep is 2 wide (--width; "
                                       "default: the cores here): add --width 5, or give --radix 2 or less"),
    (["--width", "2"], "nearest takes 3 dependencies per task by default (the core's radix), and the sweep is 2 "
                       "wide (--width; default: the cores here): add --width 3"),
])
def test_a_graph_the_width_cannot_hold_names_the_option_to_add(cli, bin_dir, options, says):
    """In the options' words (--width, --radix), never the binaries' -radix and -width."""
    code, _, err = cli("metg", "serial", "--pattern", "nearest", *options)
    assert code == 2 and says in one_line(err) and "-width (" not in err, err
    assert not cli.db.exists()


def test_few_steps_warn_with_the_figure(cli, bin_dir):
    """5 steps: a run at the METG lasts a few µs, of which the timed region's start and end are
    about half; said with the figure and the --steps that brings it under 5%. The sweep starts at
    -iter 1024, where the start and end (about 2.7 µs) are already near a fifth of a 5-step run: a
    busy machine that stops the sweep there still leaves it far above 5% (from -iter 4096, about 5%,
    CI's busy run read no warning)."""
    code, _, err = cli("metg", "serial", "--steps", "5", "--width", "1", "--start-iter", "1024", "--reps", "1",
                       "--tries", "1", "--refine", "0", "--no-trace", "--target-interval", "0")
    assert code in (0, 5), err
    said = re.search(r"serial: each run's timed region starts and ends in [\d.]+ [nµm]?s whatever its steps, "
                     r"(\d+)% of a run at the METG \(.* at -iter \d+, 5 steps\): the METG counts it as overhead; "
                     r"(?:a step at this size is too short to time apart from them \(1 step ran as fast as 5\), so )?"
                     r"give --steps (\d+) or more", " ".join(err.split()))
    assert said and int(said.group(1)) > 5 and int(said.group(2)) > 5, err
    # the one-step runs are a question about the sweep, not a measurement: not stored
    assert sqlite3.connect(cli.db).execute("SELECT count(*) FROM runs WHERE steps != 5").fetchone()[0] == 0


def test_the_fixed_cost_of_a_run_and_the_steps_that_hide_it():
    from taskbench.commands.metg import short_steps
    # serial, 20 steps at -iter 64: 5.95 µs; one step: 2.24 µs -> 0.195 µs a step, 2.05 µs fixed
    fixed, step = short_steps.fixed_cost(20, 5.95e-6, 1, 2.245e-6)
    assert step == pytest.approx(1.95e-7) and fixed == pytest.approx(2.05e-6)
    assert short_steps.share(fixed, step, 20) == pytest.approx(2.05 / 5.95)
    assert short_steps.steps_for(fixed, step) == 200  # 2.05 / (2.05 + 200 x 0.195) = 4.99%; 100: 9.5%
    # a sweep of the paper's steps (or more) runs nothing more
    analysis = SimpleNamespace(params=SimpleNamespace(steps=1000, simulation=None), curves={"x": None})
    assert short_steps.warn(None, analysis) is None


def test_resume_refuses_the_systems_and_options_it_would_ignore(cli, bin_dir):
    assert cli("-q", "metg", "serial", *SMALL, "--no-trace", "--campaign", "walk-a")[0] in (0, 5)
    before = _runs(cli.db)
    code, _, err = cli("metg", "--resume", "walk-a", "--steps", "50", "serial", "openmp_for")
    assert code == 2 and ("--resume continues campaign walk-a with the systems and options it stored: serial, "
                          "openmp_for, --steps 50 would be ignored") in one_line(err), err
    assert _runs(cli.db) == before
    # what applies to the resume itself is taken
    code, _, err = cli("-q", "metg", "--resume", "walk-a", "--no-trace", "--strict")
    assert code in (0, 5), err


def _set_params(db, name: str, **changes) -> None:
    con = sqlite3.connect(db)
    params = json.loads(con.execute("SELECT params FROM campaigns WHERE name=?", (name,)).fetchone()[0])
    con.execute("UPDATE campaigns SET params=? WHERE name=?", (json.dumps({**params, **changes}), name))
    con.commit()


def test_compare_names_every_difference_and_refuses_measured_against_simulated(cli, bin_dir):
    sweep = ["-q", "metg", "serial", "--width", "1", "--start-iter", "4096", "--reps", "1", "--tries", "1",
             "--refine", "0", "--no-trace", "--target-interval", "0"]
    assert cli(*sweep, "--steps", "20", "--campaign", "s20")[0] in (0, 5)
    assert cli(*sweep, "--steps", "10", "--kernel", "compute_bound2", "--campaign", "s10")[0] in (0, 5)
    code, _, err = cli("compare", "s20", "s10", "--allow-unreliable")
    assert code == 0, err
    assert ("A and B differ in more than their systems: steps (A 20, B 10); kernel (A compute_bound, "
            "B compute_bound2); each B/A carries these differences too") in " ".join(err.split()), err
    code, _, err = cli("compare", "s20", "s20", "--allow-unreliable")
    assert code == 0 and "A and B are the same campaign (s20): every B/A is 1 by construction" in err, err
    _set_params(cli.db, "s10", simulation={"platform": "small", "nodes": 4, "path": "x", "sha256": "0" * 64})
    code, _, err = cli("compare", "s20", "s10", "--allow-unreliable")
    assert code == 2 and one_line(err).startswith("taskbench: s10 is simulated on small, 4 nodes, s20 measured on ")
    assert one_line(err).endswith("a simulated METG is never compared with a measured one (docs/simulation.md)")


def test_a_disturbed_peak_is_marked_and_never_a_peak(cli, bin_dir, monkeypatch):
    """Every run of the peak beside a busy neighbour: the table and a warning say so, and no
    efficiency is measured against it (it was stored, and used, as any other)."""
    from taskbench.measure.peak import load_peaks
    from taskbench import provenance

    real = campaign.run_once

    def beside_other_processes(*args, **kwargs):
        outcome = real(*args, **kwargs)
        outcome.background_load = provenance.available_cores() + 1.0
        outcome.metrics["elapsed_seconds"] = 1.0  # long enough for its load reading to count
        return outcome

    monkeypatch.setattr(campaign, "run_once", beside_other_processes)
    code, out, err = cli("peak", "--cores", "1", "--reps", "2", "--steps", "5", "--iter", "256")
    assert code == 0, err
    assert "peak with 1 core: every one ran beside other processes" in " ".join(err.split()), err
    assert "none is a peak" in " ".join(err.split())
    con = sqlite3.connect(cli.db)
    machine_id = con.execute("SELECT machine_id FROM runs").fetchone()[0]
    assert con.execute("SELECT count(*) FROM runs WHERE status='ok'").fetchone()[0] == 2

    from taskbench.store import Store
    store = Store(cli.db, read_only=True)
    try:
        assert load_peaks(store, "compute_bound", machine_id).peak(1) is None
    finally:
        store.close()


def test_run_honours_the_users_json_and_verbose_flags(cli, bin_dir, tmp_path):
    report = tmp_path / "out" / "r.json"
    trace = tmp_path / "t.json"
    code, out, err = cli("run", "serial", "-steps", "3", "-json", str(report), "-trace", str(trace), "-v")
    assert code == 0, err
    written = json.loads(report.read_text())
    assert written["schema"] == "taskbench-report" and written["graphs"][0]["timesteps"] == 3
    assert trace.is_file() and "Running Task Benchmark" in out  # -v: the system's own lines
    # a sweep stores every run's report itself: -json in its --flags is refused, not ignored
    code, _, err = cli("metg", "serial", "--flags=-json x.json")
    assert code == 2 and "--flags: -json is not for a sweep: every run's report is stored" in one_line(err)


def test_no_none_reaches_a_user(cli, bin_dir):
    code, out, err = cli("run", "--external", f"ext=1:{bin_dir / 'serial'}", "-steps", "10")
    assert code == 0, err
    assert "None" not in out + err
    assert "10 steps x its default width" in out and "1 (as --external declared)" in out


def test_interrupted_campaigns_read_interrupted(cli, bin_dir, monkeypatch):
    from taskbench.store.claims import Claims

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(campaign, "run_sweep", interrupted)
    assert cli("metg", "serial", *SMALL, "--campaign", "cut")[0] == 130
    code, out, _ = cli("-q", "campaigns")
    assert [line.split("\t")[:3] for line in out.splitlines()[1:]] == [["cut", "metg", "interrupted"]]
    # while a live process executes it, it is running, and so are the sweeps it runs under its
    # claim (a METG study's, named CAMPAIGN-LABEL)
    con = sqlite3.connect(cli.db)
    con.row_factory = sqlite3.Row
    row = dict(con.execute("SELECT * FROM campaigns WHERE name='cut'").fetchone(), name="cut-sweep")
    con.execute(f"INSERT INTO campaigns ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    con.commit()
    claims = Claims(cli.db)
    claims.claim("cut")
    try:
        code, out, _ = cli("-q", "campaigns")
        assert {line.split("\t")[0]: line.split("\t")[2] for line in out.splitlines()[1:]} == {
            "cut": "running", "cut-sweep": "running"}
    finally:
        claims.release_all()
    code, out, _ = cli("-q", "campaigns")
    assert {line.split("\t")[2] for line in out.splitlines()[1:]} == {"interrupted"}


def test_campaigns_count_the_runs_metg_says_it_executed(cli, bin_dir):
    """The traced run (the report's Gantt chart) is not a measurement: not among the runs."""
    code, _, err = cli("metg", "serial", *SMALL, "--campaign", "t")
    executed = int(re.search(r"(\d+) runs? executed", err).group(1))
    assert sqlite3.connect(cli.db).execute("SELECT count(*) FROM runs WHERE key LIKE 'trace/%'").fetchone()[0] == 1
    code, out, _ = cli("-q", "campaigns")
    row = dict(zip(out.splitlines()[0].split("\t"), out.splitlines()[1].split("\t")))
    assert int(row["runs"]) == executed


def test_predict_from_a_one_core_system_says_it_is_one_cores_figure(cli, bin_dir):
    assert cli("-q", "metg", "serial", *SMALL, "--no-trace")[0] in (0, 5)
    code, _, err = cli("predict", "--system", "serial", "--allow-unreliable", "--work", "100", "--tasks", "1000")
    assert code == 0, err
    assert "serial runs on one core: its METG is one core's" in " ".join(err.split()), err


@pytest.mark.parametrize("args, says, never", [
    (["export", "--json", "."], "--json .: is a folder; give a file's name (e.g. runs.json)", ".html"),
    (["--db", ".", "campaigns"], "--db .: is a folder; the store is a file (e.g. taskbench.db)", "no such store"),
    (["--build-dir", "/nonexistent", "run", "serial"],
     "system 'serial' is not available: --build-dir /nonexistent: no such folder", "no build found"),
    (["predict", "--metg", "5e-6", "--system", "native", "--work", "1", "--tasks", "10"],
     "--metg and --system: give the METG one way: --metg SECONDS", "give the METG:"),
    (["predict", "--system", "nosuch", "--work", "1", "--tasks", "10"],
     "--system nosuch: no stored metg campaign measured it, and no system here has that name", "metg nosuch"),
    (["predict", "--system", "seral", "--work", "1", "--tasks", "10"], "did you mean serial?", "metg seral"),
    (["peak", "--kernel", "compute_bond"], "unknown kernel 'compute_bond'; did you mean compute_bound?", "choose"),
    (["metg", "serial", "--kernel", "bogus"], "unknown kernel 'bogus' (one of compute_bound", "empty"),
    (["metg", "serial", "--kernel", "empty"], "kernel 'empty' does no counted work, so it has no efficiency",
     "allowed"),
])
def test_messages_say_what_is_true(cli, bin_dir, args, says, never):
    if args[0] == "export" or args[:2] == ["predict", "--system"]:  # with a store to read
        assert cli("run", "serial", "-steps", "3")[0] == 0
    code, _, err = cli(*args)
    assert code in (2, 4) and says in one_line(err) and never not in err, err  # 4: nothing built there


def test_a_baseline_that_is_not_one_says_so(cli, tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "a"\n')
    code, _, err = cli("check", "--baseline", str(hosts))
    assert code == 2 and one_line(err).startswith(f"taskbench: --baseline {hosts}: not a baseline file (a JSON file "
                                                  "that `taskbench check --save-baseline FILE` writes; this one is "
                                                  "not JSON: Expecting value")


def test_systems_says_where_it_looked_for_the_build(cli):
    code, out, err = cli("--build-dir", "/nonexistent", "systems")
    assert "executables in no executables found" not in out + err
    assert "build-dir: --build-dir /nonexistent: no such folder, registry in" in out + err


def test_a_check_cell_says_what_the_repetitions_did_instead():
    from taskbench.check.sampling import _why_not
    from taskbench.measure.metg.methods import MetgValue
    below = MetgValue(None, "none", "never reaches 50% (best 31%)")
    assert _why_not([below] * 40) == "; every one stayed below 50% at every size"
    assert _why_not([below, MetgValue(None, "unbracketed"), MetgValue(2e-6, "found")]) == (
        "; 1 stayed below 50% at every size, 1 stayed above 50% at every size")


def test_a_rejected_command_says_nothing_of_the_folder_it_made_and_removed(cli, bin_dir, tmp_path):
    db = tmp_path / "newdir" / "x.db"
    code, _, err = cli("--db", str(db), "metg", "serial", "--flags=-output 3")
    assert code == 2 and "made the folder" not in err and not (tmp_path / "newdir").exists(), err


def test_no_folder_is_made_at_the_root_of_the_file_system(cli, bin_dir):
    top = Path(f"/taskbench-test-{os.getpid()}-nonexistent")
    assert cli("run", "serial", "-steps", "3")[0] == 0
    try:
        code, _, err = cli("report", "--html", str(top / "dir" / "r.html"))
        assert code == 2 and f"there is no folder {top}, and none is made at the root" in one_line(err), err
        assert not top.exists()
    finally:
        if top.exists():
            shutil.rmtree(top)


@pytest.mark.parametrize("command, says", [
    ("metg", ["--pattern PATTERN", "stencil_1d, stencil_1d_periodic", "(stencil_1d)", "--kernel KERNEL",
              "compute_bound, compute_bound2", "(compute_bound)"]),
    ("check", ["--pattern PATTERN", "all_to_all, nearest", "(stencil_1d)"]),
    ("campaigns", ["--kind KIND", "metg, peak, run, study, check (default: every kind)"]),
    ("peak", ["--kernel KERNEL", "memory_bound"]),
])
def test_help_gives_the_choices_and_defaults(command, says, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert all(s in out for s in says), out


def test_the_patterns_in_the_help_are_the_cores(bin_dir):
    """The help's list (commands/options.py) against the core's own, which checks a --pattern."""
    from taskbench.commands.options import PATTERNS
    said = subprocess.run([bin_dir / "serial", "-type", "x"], capture_output=True, text=True).stderr
    assert said.strip().endswith("expected one of " + ", ".join(PATTERNS)), said


def test_a_one_host_cluster_is_one_host(cli, bin_dir, tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "here"\naddress = "127.0.0.1"\ncores = 1\nstart = ["env"]\n')
    code, out, err = cli("hosts", "--hosts", str(hosts))
    if "no system that runs across hosts is built here" in err:
        pytest.skip("no system that runs across hosts is built")
    assert f"hosts of {hosts} (1 host, 1 core)" in out + err, out + err


def test_the_simulated_table_gives_the_wall_time_its_note_gave(capsys):
    from taskbench.console import Console
    from taskbench.report.tables import against_nodes_table
    summary = SimpleNamespace(seconds=2e-6, low=None, high=None, text_status="", mark="")
    params = SimpleNamespace(threshold=0.5, reps=1, pattern="stencil_1d", graphs=1)
    analysis = SimpleNamespace(params=params, runs=[{"wall_seconds": 0.788}],
                               curves={"mpi_p2p_smpi": SimpleNamespace(summary=summary)})
    Console(quiet=False).table(*against_nodes_table("small", [(1, analysis, 1.75)], None, None, quiet=False))
    out = capsys.readouterr()
    assert "1.75 s" in out.out + out.err and "788 ms" not in out.out + out.err


def test_an_upper_bound_reads_or_less_and_its_ratios_say_which_way_they_hold():
    from taskbench import units
    from taskbench.studies import metg_results
    bound = metg_results.MetgCell(5.99e-7, 5.99e-7, 6.19e-7, bound=True)
    assert bound.text.endswith(" or less")
    assert not metg_results.MetgCell(5.99e-7, 5.99e-7, 6.19e-7).text.endswith(" or less")
    # B/A over a bound A can only be larger; over a bound B only smaller; over two, nothing.
    assert units.ratio_bound(False, True) == "at least "
    assert units.ratio_bound(True, False) == "at most "
    assert units.ratio_bound(False, False) == "" and units.ratio_bound(True, True) is None


def test_a_studys_growth_from_a_bound_says_which_way_it_holds(monkeypatch):
    from taskbench.studies import metg_results
    cells = {("native", "a"): metg_results.MetgCell(6e-7, 5e-7, 7e-7, bound=True),
             ("native", "b"): metg_results.MetgCell(1.2e-6, 1e-6, 1.4e-6)}
    result = metg_results.MetgStudyResult({"params": {}}, {})
    monkeypatch.setattr(metg_results.MetgStudyResult, "values", lambda self: [(1, "a"), (2, "b")])
    monkeypatch.setattr(metg_results.MetgStudyResult, "systems", property(lambda self: ["native"]))
    monkeypatch.setattr(metg_results.MetgStudyResult, "cell", lambda self, s, label: cells[(s, label)])
    [line] = metg_results.ratio_findings(result, "width")
    assert "or less at width 1" in line and "(at least 2x)" in line, line


def test_a_step_lost_in_the_noise_names_the_papers_steps_not_a_made_up_count(monkeypatch):
    """The sweep's 5 steps ran no slower than one (seen once in 40 sweeps on a busy VM): no step
    count follows from the two runs, and the warning says so instead of "more --steps would not"."""
    from taskbench.commands.metg import short_steps
    monkeypatch.setattr(short_steps, "_fastest_elapsed", lambda *_: [5.04e-6, 5.17e-6])
    monkeypatch.setattr(short_steps, "_nearest_run", lambda *_: {"iter": 64})
    said = []
    ctx = SimpleNamespace(console=SimpleNamespace(warn=said.append), registry=SimpleNamespace(get=str))
    analysis = SimpleNamespace(params=SimpleNamespace(steps=5, simulation=None),
                               curves={"serial": SimpleNamespace(summary=SimpleNamespace(seconds=1.4e-6))})
    short_steps.warn(ctx, analysis)
    assert said == ["serial: each run's timed region starts and ends in 5.17 µs whatever its steps, 100% of a run "
                    "at the METG (5.04 µs at -iter 64, 5 steps): the METG counts it as overhead; a step at this "
                    "size is too short to time apart from them (1 step ran as fast as 5), so give --steps 1000 "
                    "or more, the paper's"]
