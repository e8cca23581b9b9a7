"""`taskbench check` end to end: a port written here whose timings are a known model (so a
verdict can be asserted, not hoped for), then the real native against a copy of its own build,
and the command's refusals."""
from __future__ import annotations

import json
import shutil
import sys
import textwrap

import pytest

from taskbench.commands import check
from taskbench.check.baseline import BASELINE_FORMAT
from taskbench.check.sampling import EMPTY, METG, QUICK, SMALL

# A port of another suite: per task, its overhead (first argument, ns) plus the kernel's
# iterations at 10 ns each, on 2 cores; each run is off its model by a deterministic jitter of
# under 1% (a counter in the file named by the second argument). Its METG(50%) is where the
# kernel's time equals the overhead: 2 x the overhead.
PORT = textwrap.dedent("""\
    import sys
    overhead_ns, counter = float(sys.argv[1]), sys.argv[2]
    args = sys.argv[3:]
    def flag(name, default):
        return int(args[args.index(name) + 1]) if name in args else default
    steps, width, iters = flag("-steps", 1000), flag("-width", 1), flag("-iter", 0)
    try:
        n = int(open(counter).read())
    except OSError:
        n = 0
    open(counter, "w").write(str(n + 1))
    jitter = ((n * 7919) % 101 - 50) / 5100
    tasks = steps * width
    elapsed = tasks / 2 * (iters * 1e-8 + overhead_ns * 1e-9) * (1 + jitter)
    print("Running Task Benchmark")
    print(f"Total Tasks {tasks}")
    print(f"Total FLOPs {tasks * iters * 64}")
    print("Total Bytes 0")
    print(f"Elapsed Time {elapsed:e} seconds")
""")


@pytest.fixture
def port(tmp_path):
    path = tmp_path / "port.py"
    path.write_text(PORT)

    def spec(name: str, overhead_ns: float) -> str:
        return f"{name}=2:{sys.executable} {path} {overhead_ns} {tmp_path / (name + '.count')}"
    return spec


def rows_of(out: str) -> dict[str, list[str]]:
    lines = [line.split("\t") for line in out.strip().splitlines()]
    assert lines[0] == check.check_outputs.COLUMNS
    return {row[1]: row for row in lines[1:]}


def test_the_same_port_twice_is_unchanged_and_writes_what_ci_reads(cli, port, tmp_path):
    code, out, err = cli("-q", "check", "--external", port("cand", 500), "--baseline-external", port("base", 500),
                         "--quick", "--no-metg", "--markdown", "summary.md", "--json", "bench.json")
    assert code == 0, err
    rows = rows_of(out)
    assert set(rows) == {EMPTY, SMALL}
    for row in rows.values():
        assert row[0] == "cand" and row[5] == "unchanged" and row[2].endswith(f"({QUICK.grain_reps})")
    assert "| cand | METG" not in (tmp_path / "summary.md").read_text()
    assert "| cand | per-task time, empty kernel |" in (tmp_path / "summary.md").read_text()
    document = json.loads((tmp_path / "bench.json").read_text())
    assert [e["name"] for e in document] == [f"cand: {EMPTY}", f"cand: {SMALL}"]
    assert document[0]["value"] == pytest.approx(500, rel=0.02) and document[0]["unit"] == "ns"


def test_a_slower_candidate_is_regressed_confirmed_and_exits_1(cli, port):
    code, out, err = cli("-q", "check", "--external", port("cand", 650), "--baseline-external", port("base", 500),
                         "--quick", "--json", "b.json", "--json-format", "bencher")
    assert code == check.EXIT_REGRESSED == 1, err
    rows = rows_of(out)
    empty, metg = rows[EMPTY], rows[METG]
    assert empty[5] == "regressed" and float(empty[4].split("x")[0]) == pytest.approx(1.3, rel=0.03)  # 650 / 500
    assert "confirmed by a second measurement" in empty[6]
    # The METG is 2 x the overhead: 1.3 us against 1 us, repetition k of each side read off the
    # same grid of sizes, which both sides ran size by size (check/metg_grid.py).
    assert metg[5] == "regressed" and float(metg[4].split("x")[0]) == pytest.approx(1.3, rel=0.05)
    import sqlite3
    grid = {}
    for system, key in sqlite3.connect(cli.db).execute(
            "SELECT system, key FROM runs WHERE key LIKE ? ORDER BY id", (f"%/{METG}/round%/iter=%",)):
        grid.setdefault(key.split("/round")[1].split("/")[0], {}).setdefault(system, []).append(key.split("/")[-2:])
    assert len(grid) == 2  # the measurement and its confirmation
    for sides in grid.values():
        assert sides["cand"] and sorted(sides["cand"]) == sorted(sides["base"])
    line = next(line for line in err.splitlines() if f"REGRESSED: cand, {EMPTY}: " in line)
    assert float(line.split(": ")[-1].split("x")[0]) == pytest.approx(1.3, rel=0.03)
    bencher = json.loads(open("b.json").read())
    assert bencher[f"cand: {METG}"]["latency"]["value"] == pytest.approx(1300, rel=0.05)


def test_runs_alternate_sides_pair_by_pair(cli, port):
    code, out, err = cli("-q", "check", "--external", port("cand", 500), "--baseline-external", port("base", 500),
                         "--quick", "--no-metg")
    assert code == 0, err
    import sqlite3
    keys = [k for (k,) in sqlite3.connect(cli.db).execute(
        "SELECT key FROM runs WHERE key LIKE '%empty kernel%' AND key NOT LIKE '%pilot' ORDER BY id")]
    sides = [k.split("/")[0] for k in keys]
    assert len(sides) == 2 * QUICK.grain_reps
    assert sides[:4] == ["cand", "base", "base", "cand"]  # each pair's first run changes side


def test_a_saved_baseline_is_compared_unpaired_and_refused_from_another_machine(cli, port, tmp_path):
    code, out, err = cli("-q", "check", "--external", port("cand", 500), "--quick", "--no-metg",
                         "--save-baseline", "base.json")
    assert code == 0 and out == "", err
    saved = json.loads((tmp_path / "base.json").read_text())
    assert saved["taskbench_check_baseline"] == BASELINE_FORMAT
    assert [(c["system"], c["metric"], len(c["values"])) for c in saved["cells"]] == [
        ("cand", EMPTY, QUICK.grain_reps), ("cand", SMALL, QUICK.grain_reps)]
    code, out, err = cli("-q", "check", "--external", port("cand", 700), "--baseline", "base.json", "--quick",
                         "--no-metg")
    assert code == 1, err
    rows = rows_of(out)
    assert rows[EMPTY][5] == "regressed" and float(rows[EMPTY][4].split("x")[0]) == pytest.approx(1.4, rel=0.03)
    # At -iter 1024 the port's tasks take 10.2 us: 0.2 us more overhead is 2%, below the threshold.
    assert rows[SMALL][5] == "unchanged"
    saved["machine_id"] = "elsewhere|other CPU|64"
    (tmp_path / "other.json").write_text(json.dumps(saved))
    code, out, err = cli("check", "--external", port("cand", 500), "--baseline", "other.json", "--no-metg")
    assert code == 2
    assert err.strip().endswith("--baseline other.json: written on another machine (elsewhere|other CPU|64); its "
                                "figures do not compare with this one's (--allow-other-machine compares anyway)")


@pytest.mark.parametrize("args, message", [
    (["native", "--baseline-build", "x", "--threshold", "0.0001"],
     "--threshold 0.0001: below 0.0005%, finer than METG(50%) resolves (docs/regression-gate.md, the metrics' "
     "resolution)"),
    (["native"], "name a baseline: --baseline-build DIR, --baseline-external NAME=CORES:COMMAND or --baseline FILE "
                 "(or --save-baseline FILE to write one)"),
    (["native", "serial", "--baseline-external", "b=1:/bin/true"],
     "--baseline-external: name exactly one candidate system (or --external) to compare it with"),
    (["native", "--baseline", "nothing.json"], "--baseline nothing.json: cannot read it"),
    (["native", "--baseline", "b.json", "--json-format", "bencher"], "--json-format bencher: give --json FILE too"),
    (["native", "--baseline", "b.json", "--width", "100000"],
     "--width 100000: check runs each system on one core per point, and"),
])
def test_mistakes_are_one_line_and_exit_2(cli, bin_dir, args, message):
    code, out, err = cli("check", *args)
    assert code == 2
    assert message in err.strip().splitlines()[-1]


def test_the_same_build_as_baseline_is_refused(cli, bin_dir):
    code, out, err = cli("check", "native", "--baseline-build", str(bin_dir.parent))
    assert code == 2 and "the same binary as the candidate's" in err


def test_a_build_whose_binary_links_to_the_candidates_is_refused(cli, bin_dir, tmp_path):
    """A worktree's build is often a link to the checkout's: reached by another path, the file is the
    same one, and a check of it against itself ran a whole campaign to say "unchanged"."""
    if not (bin_dir / "native").is_file():
        pytest.skip("native is not built")
    other = tmp_path / "linked" / "bin"
    other.mkdir(parents=True)
    (other / "native").symlink_to(bin_dir / "native")
    code, _, err = cli("-q", "check", "native", "--baseline-build", str(other.parent), "--quick", "--no-metg")
    assert code == 2 and "the same binary as the candidate's" in err, err


def test_native_against_a_copy_of_its_build_runs_interleaved(cli, bin_dir, tmp_path):
    """The real runtime: its baseline is another folder's binary (a copy), both run here."""
    if not (bin_dir / "native").is_file():
        pytest.skip("native is not built")
    other = tmp_path / "base" / "bin"
    other.mkdir(parents=True)
    shutil.copy2(bin_dir / "native", other / "native")
    code, out, err = cli("-q", "check", "native", "--baseline-build", str(other.parent), "--quick", "--no-metg")
    assert code in (0, 5), err  # unchanged or, on a noisy machine, inconclusive; never a false regression here
    rows = rows_of(out)
    assert set(rows) == {EMPTY, SMALL}
    import sqlite3
    db = sqlite3.connect(cli.db)
    argv = {system: {json.loads(a)[0] for (a,) in db.execute("SELECT argv FROM runs WHERE system=?", (system,))}
            for (system,) in db.execute("SELECT DISTINCT system FROM runs")}
    assert argv == {"native": {str(bin_dir / "native")}, "native@baseline": {str(other / "native")}}
