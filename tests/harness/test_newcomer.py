"""A newcomer's path through the README, with the mistakes people make on it: a mistyped
system, command, study or flag, the harness's `--steps` given to a system, flags that contradict
the sweep's options, a store in a folder of its own, an interrupted sweep continued from its hint.
Each mistake is one line with a way forward and exit status 2; nothing is stored for it."""

from __future__ import annotations

import shlex
import sqlite3

import pytest

from taskbench import cli
from taskbench.cli import COMMANDS
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


def test_a_flag_mistake_shows_its_own_commands_usage(cli):
    code, _, err = cli("metg", "serial", "--stepz", "100")
    assert code == 2 and err.startswith("usage: taskbench metg ")


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


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_command_prints_its_help(command, capsys):
    """The first thing a newcomer types: argparse formats help with %, so a bare percent sign in
    any option's help ends it in a traceback (METG(50%) did, in `taskbench --help`)."""
    with pytest.raises(SystemExit) as done:
        cli.main([*([command] if command else []), "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: taskbench") and (command in out)
