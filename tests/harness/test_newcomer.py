"""A newcomer's path through the README, with the mistakes people make on it: a mistyped
system, command, study or flag, the harness's `--steps` given to a system, flags that contradict
the sweep's options, a store in a folder of its own, an interrupted sweep continued from its hint.
Each mistake is one line with a way forward and exit status 2; nothing is stored for it."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3

import pytest

from taskbench import cli
from taskbench.measure import campaign

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
    assert code == 0 and out.splitlines()[0].startswith("system\tradix 0"), err
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
