"""External systems (`--external NAME=CORES:COMMAND`, registry `external = true`): a fake port
written here that prints the original Task Bench summary lines, and our own binaries run as
external commands."""

import json
import sqlite3
import sys
import textwrap

import pytest

from taskbench.launch.runner import metrics_from, parse_summary

# A port of another suite: takes the Task Bench flags (after its own first argument, how many
# times slower its kernel is than "ours"), computes no task, and prints what the original suite
# prints. Its elapsed time is a model (1e-8 s per iteration x slowdown + 10 us per step), so
# its METG(50%) is known: about 2 x 10 us whatever the slowdown, once measured against its own
# best.
FAKE_PORT = """\
import sys
args = sys.argv[1:]
slowdown = float(args.pop(0))
if slowdown == 0:
    print("Total Tasks 4")  # a broken port: the other summary lines are missing
    sys.exit(0)
def flag(name, default):
    return int(args[args.index(name) + 1]) if name in args else default
steps, width, iters = flag("-steps", 1000), flag("-width", 1), flag("-iter", 0)
tasks, flops = steps * width, steps * width * iters * 64
elapsed = steps * (iters * 1e-8 * slowdown + 1e-5)
print("Running Task Benchmark")
print("  Configuration:")
print("    Task Graph 1:")
print(f"      Time Steps: {steps}")
print(f"Total Tasks {tasks}")
print("  Unable to estimate local/nonlocal dependencies")  # no Total Dependencies: not required
print(f"Total FLOPs {flops}")
print("Total Bytes 0")
print(f"Elapsed Time {elapsed:e} seconds")
# No FLOP/s or B/s lines either: the harness divides the totals by the elapsed time.
print("Transfer (estimated):")
"""

ORIGINAL_OUTPUT = """\
Running Task Benchmark
  Configuration:
    Task Graph 1:
      Time Steps: 1000
      Max Width: 4
      Dependence Type: stencil_1d
Total Tasks 4000
Total Dependencies 11992
  Unable to estimate local/nonlocal dependencies
Total FLOPs 8192000
Total Bytes 0
Elapsed Time 1.234567e+00 seconds
FLOP/s 6.635500e+06
B/s 0.000000e+00
Transfer (estimated):
  Local Bytes 0
"""

SWEEP = ["--steps", "10", "--width", "1", "--start-iter", "16384", "--reps", "1", "--tries", "1"]


def test_original_summary_lines_parse_exactly():
    figures = parse_summary(ORIGINAL_OUTPUT)
    assert figures == {"tasks": 4000, "dependencies": 11992, "flops": 8192000, "bytes": 0,
                       "elapsed_seconds": 1.234567, "flops_per_second": 6.6355e6, "bytes_per_second": 0.0}
    assert metrics_from(None, figures)["granularity_seconds"] == pytest.approx(1.234567 / 4000)


@pytest.mark.parametrize("spec, message", [
    ("orig", "expected NAME=CORES:COMMAND"),
    ("orig=two:./serial", "CORES 'two' must be a positive whole number"),
    ("orig=0:./serial", "CORES '0' must be a positive whole number"),
    ("orig=1:", "COMMAND is empty"),
    ("orig=1:'unclosed", "No closing quotation"),
    ("a/b=1:./serial", "NAME must be non-empty, without spaces or '/'"),
    ("orig=1:/no/such/port", "--external orig: command not found: /no/such/port"),
])
def test_bad_external_specs_are_one_line_errors(cli, spec, message):
    code, _, err = cli("metg", "--external", spec)
    assert code == 2
    assert message in err and err.count("\n") == 1


@pytest.fixture
def ports(tmp_path, monkeypatch):
    """The fake port, a registry with "ours" (the fake at full speed, a normal system) and
    "same" (the fake at full speed, an `external = true` entry)."""
    port = tmp_path / "port.py"
    port.write_text(FAKE_PORT)
    run = f"{sys.executable} -S {port}"
    root = tmp_path / "systems"
    (root / "ours").mkdir(parents=True)
    ours = tmp_path / "ours.sh"
    ours.write_text(f"#!/bin/sh\nexec {run} 1 \"$@\"\n")
    ours.chmod(0o755)
    (root / "ours" / "system.toml").write_text(f'[[system]]\nname = "ours"\nbinary = "{ours}"\ncores = 1\n')
    (root / "same").mkdir()
    (root / "same" / "system.toml").write_text(textwrap.dedent(f"""\
        [[system]]
        name = "same"
        external = true
        command = "{run} 1"
        cores = 1
        """))
    monkeypatch.setenv("TASKBENCH_SYSTEMS_DIR", str(root))
    return run


def test_external_metg_against_its_own_kernel_family(cli, ports):
    code, out, err = cli("-q", "metg", "ours", "same", "--external", f"slow=1:{ports} 3",
                         *SWEEP, "--campaign", "ext")
    assert code == 0, err
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert set(rows) == {"ours", "same", "slow"}
    for name in rows:  # 50% at 1e-8 x slowdown x iter = 10 us: granularity 2 x 10 us
        assert float(rows[name][2]) == pytest.approx(2e-5, rel=0.1), name
    assert "external: efficiency vs its own best" in rows["slow"][-1] and "2.9x below" in rows["slow"][-1]
    assert "own best" not in rows["same"][-1] and "own best" not in rows["ours"][-1]

    con = sqlite3.connect(cli.db)
    machine = json.loads(con.execute("SELECT machine FROM campaigns WHERE name='ext'").fetchone()[0])
    assert set(machine["external_own_peaks"]) == {"slow"}
    own = machine["external_own_peaks"]["slow"]
    # Both bests are at the largest size, -iter 16384: the ratio of the modelled step times.
    expected = (16384 * 3e-8 + 1e-5) / (16384 * 1e-8 + 1e-5)
    assert own["cores"] == 1 and own["machine_peak"] / own["own_best"] == pytest.approx(expected, rel=1e-5)
    params = json.loads(con.execute("SELECT params FROM campaigns WHERE name='ext'").fetchone()[0])
    assert params["externals"] == {"slow": {"cores": 1, "command": f"{ports} 3"}}

    # The parsed figures are exactly what the port printed; no -json went to an external.
    launcher, argv, tasks, flops, elapsed, cores, granularity, report = con.execute(
        "SELECT launcher, argv, tasks, flops, elapsed_seconds, cores, granularity_seconds, report "
        "FROM runs WHERE campaign='ext' AND system='slow' AND iter=16384").fetchone()
    assert launcher == "external" and "-json" not in json.loads(argv) and report is None
    assert (tasks, flops, cores) == (10, 10 * 16384 * 64, 1)
    assert elapsed == float(f"{10 * (16384 * 3e-8 + 1e-5):e}")
    assert granularity == pytest.approx(elapsed / 10)
    assert "-json" in json.loads(con.execute(
        "SELECT argv FROM runs WHERE campaign='ext' AND system='ours' LIMIT 1").fetchone()[0])

    # Resuming the finished campaign needs no --external again: the command is stored.
    code, out, err = cli("-q", "metg", "--resume", "ext")
    assert code == 0, err
    assert "slow" in out


def test_external_without_summary_lines_is_one_clear_error(cli, ports):
    code, _, err = cli("metg", "--external", f"broken=1:{ports} 0", *SWEEP)
    assert code == 2
    assert err.strip() == ("taskbench: external broken failed its first run (no_report): exit code 0 but "
                           "no Task Bench summary line Total FLOPs, Total Bytes, Elapsed Time in its output "
                           "(an external command must print the original summary lines)")


def test_external_name_must_not_shadow_a_system(cli, ports):
    code, _, err = cli("metg", "--external", f"ours=1:{ports} 1")
    assert code == 2 and "--external ours: a registry system already has that name" in err


def test_run_with_an_external(cli, ports):
    code, out, err = cli("-q", "run", "--external", f"orig=1:{ports} 1", "-steps", "4", "-iter", "100")
    assert code == 0, err
    con = sqlite3.connect(cli.db)
    assert con.execute("SELECT system, launcher, tasks, flops, cores FROM runs").fetchone() == \
        ("orig", "external", 4, 4 * 100 * 64, 1)


def test_our_binary_as_external_matches_itself(cli, bin_dir):
    code, out, err = cli("-q", "metg", "serial", "--external", f"ext_serial=1:{bin_dir / 'serial'}",
                         "--steps", "20", "--width", "1", "--start-iter", "4096", "--reps", "1",
                         "--campaign", "mirror")
    assert code == 0, err
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert set(rows) == {"serial", "ext_serial"}
    assert all(1e-8 < float(rows[n][2]) < 1e-3 for n in rows)  # a METG found for both
    con = sqlite3.connect(cli.db)
    ours = {it: (t, f) for it, t, f in con.execute(
        "SELECT iter, tasks, flops FROM runs WHERE system='serial' AND status='ok'")}
    theirs = con.execute("SELECT iter, tasks, flops, elapsed_seconds, granularity_seconds, launcher "
                         "FROM runs WHERE system='ext_serial' AND status='ok'").fetchall()
    assert theirs
    for it, tasks, flops, elapsed, granularity, launcher in theirs:
        assert launcher == "external"
        if it in ours:  # same graph, same counted work: parsed from the summary lines
            assert (tasks, flops) == ours[it]
        assert granularity == pytest.approx(elapsed * 1 / tasks)
