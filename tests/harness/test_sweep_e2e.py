"""Real sweeps of serial and openmp_for on small graphs: stored rows, METG, report, export,
compare, peak."""

import csv
import html
import json
import os
import sqlite3

import pytest

from harness_helpers import is_png

SMALL = ["--steps", "20", "--width", "2", "--start-iter", "4096", "--reps", "2"]


def test_metg_sweep_report_and_exports(cli, bin_dir, tmp_path):
    code, out, err = cli("-q", "metg", "serial", "openmp_for", *SMALL, "--campaign", "small",
                         "--html", "out/report.html")
    assert code == 0, err
    con = sqlite3.connect(cli.db)
    n, distinct = con.execute("SELECT count(*), count(DISTINCT key) FROM runs WHERE campaign='small'").fetchone()
    assert n == distinct > 8
    prov = con.execute("SELECT machine, argv, compiler, git_revision, started_at, system_version, cores "
                       "FROM runs WHERE system='openmp_for' LIMIT 1").fetchone()
    assert json.loads(prov[0])["cpu_model"] and "-iter" in json.loads(prov[1])
    assert prov[2] and prov[4] and prov[5] and prov[6] >= 1
    assert con.execute("SELECT status FROM campaigns WHERE name='small'").fetchone()[0] == "done"
    machine = json.loads(con.execute("SELECT machine FROM campaigns WHERE name='small'").fetchone()[0])
    # The build's bench_exchange_floor probed the placement before the first run, between the
    # runs and after the last, unless it cannot run here.
    latency = machine.get("core_to_core_one_way_ns")
    probe = bin_dir.parent / "bench" / "bench_exchange_floor"
    assert latency or not probe.exists() or len(os.sched_getaffinity(0)) < 2, machine
    if latency:
        start, end = latency
        assert 0 < start < 1e5 and 0 < end < 1e5
        # Each probe is also the floor of the sweep's own graph at its width, a thread per column.
        floor = machine["no_runtime_floor"]
        assert (floor["width"], floor["workers"]) == (2, 2) and floor["probes"] == len(machine["placement_probes"])
        assert floor["no_runtime_row_ns"] == min(p["no_runtime_row_ns"] for p in machine["placement_probes"])
        assert 0 < floor["exchange_row_ns"] < 1e5 and 0 < floor["no_runtime_row_ns"] < 1e5
        assert floor["metg_lower_bound_seconds"] == pytest.approx(2 * floor["no_runtime_row_ns"] * 1e-9, abs=2e-9)
    blas = json.loads(con.execute("SELECT report FROM runs WHERE system='serial' AND status='ok' "
                                  "LIMIT 1").fetchone()[0])["taskbench"]["blas"]

    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert set(rows) == {"serial", "openmp_for"}
    serial_metg = float(rows["serial"][2])
    assert 1e-8 < serial_metg < 1e-3  # METG found, and a plausible time

    page = tmp_path / "out" / "report.html"
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert "data:image/png;base64," in text and "METG(50%)" in text and "Provenance" in text
    assert html.escape(blas) in text  # whatever BLAS ran
    if latency:
        probes = [p["one_way_ns"] for p in machine["placement_probes"]]
        assert (probes[0], probes[-1]) == (start, end) and len(probes) >= 2
        assert f"core-to-core {min(probes):.0f}-{max(probes):.0f} ns one way over {len(probes)} probes" in text
        assert "no-runtime floor: METG(50%) " in text and " pinned threads, " in text
    assert "peak with 1 core: " in text and "from the campaign&#x27;s best run (serial -iter " in text
    pngs = sorted((tmp_path / "out" / "report_figures").glob("*.png"))
    # METG bars, efficiency, throughput, a Gantt per system, the time split
    assert len(pngs) == 6 and all(is_png(p) for p in pngs)
    assert len(list((tmp_path / "out" / "report_figures").glob("*.svg"))) == 6

    assert cli("export", "--csv", "runs.csv")[0] == 0
    with open(tmp_path / "runs.csv") as f:
        table = list(csv.DictReader(f))
    assert len(table) == n and {"system", "iter", "status", "granularity_seconds"} <= set(table[0])
    assert cli("export", "--json", "runs.json", "--campaign", "small")[0] == 0
    data = json.loads((tmp_path / "runs.json").read_text())
    assert len(data) == n and {r["campaign"] for r in data} == {"small"}  # one record per run

    # A second campaign, then compare and the all-campaigns report.
    assert cli("-q", "metg", "serial", *SMALL, "--campaign", "again")[0] == 0
    code, out, err = cli("-q", "compare", "small", "again")
    compare_rows = {l.split("\t")[0]: l.split("\t") for l in out.splitlines()[1:]}
    # Two repetitions of 20 steps may disagree: then no ratio, one line why, exit 5.
    refused = compare_rows["serial"][5] == "unreliable"
    assert (code, refused, "serial: no B/A ratio" in err) in {(0, False, False), (5, True, True)}, (code, out, err)
    assert compare_rows["openmp_for"][4] == "not in B"
    code, out, _ = cli("-q", "compare", "small", "again", "--allow-unreliable")
    compare_rows = {l.split("\t")[0]: l.split("\t") for l in out.splitlines()[1:]}
    # -q: B/A and its range as numbers, each in a column of its own
    assert code == 0 and float(compare_rows["serial"][5]) > 0
    assert float(compare_rows["serial"][6]) <= float(compare_rows["serial"][5]) <= float(compare_rows["serial"][7])
    assert compare_rows["serial"][8].removesuffix(" (unreliable)") in ("differ", "not told apart")
    assert cli("report", "--html", "all.html")[0] == 0
    page = (tmp_path / "all.html").read_text()
    # Two METG campaigns: a summary first, the newest open, the older folded.
    assert "Every METG campaign, newest first" in page and page.count("<details>") == 1
    assert page.index("<h3>again</h3>") < page.index("<details><summary>small (created ")
    code, out, _ = cli("-q", "campaigns")
    assert code == 0 and "small" in out and "again" in out


def test_peak_is_stored_and_used(cli, bin_dir):
    code, out, err = cli("-q", "peak", "--reps", "2", "--iter", "4096", "--steps", "20")
    assert code == 0, err
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert "serial" in rows and rows["serial"][1] == "1"
    code, out, _ = cli("-q", "run", "serial", "-steps", "20", "-width", "2", "-kernel", "compute_bound",
                       "-iter", "1024")
    assert code == 0 and "efficiency" in out


def test_peak_measures_each_core_count_asked_for(cli, bin_dir):
    """Every count in --cores with as many cores busy: serial for 1, an all-cores system with
    that many threads for more; nothing scaled."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 CPUs")
    code, out, err = cli("-q", "peak", "--cores", "2,1", "--reps", "1", "--iter", "4096", "--steps", "20")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert [(r[0] == "serial", r[1]) for r in rows] == [(True, "1"), (False, "2")]
    con = sqlite3.connect(cli.db)
    stored = con.execute("SELECT system, cores, threads_per_rank FROM runs ORDER BY cores").fetchall()
    assert [(c, t) for _, c, t in stored] == [(1, 1), (2, 2)] and stored[0][0] == "serial"
    for bad, message in (("0", "each count must be between 1 and the"), ("1,x", "expected comma-separated")):
        code, _, err = cli("peak", "--cores", bad)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_user_mistakes_are_one_line(cli, bin_dir):
    assert cli("run", "serial", "-steps", "3")[0] == 0  # a store, without the campaigns named below
    for args, pattern in [(("metg",), "name at least one system"),
                          (("metg", "serial", "--threshold", "150"), "--threshold 150"),
                          (("metg", "serial", "--kernel", "empty"), "no counted work"),
                          (("compare", "x", "y"), "no campaign named 'x'"),
                          (("run", "nope"), "unknown system 'nope'"),
                          (("metg", "--resume"), "no unfinished metg campaign"),
                          (("metg", "serial", "--pattern", "stencil"), "-type: invalid value 'stencil'"),
                          (("metg", "serial", "--flags", "-outptu 5"), "unknown flag '-outptu'"),
                          (("bogus",), "unknown command 'bogus'")]:
        code, out, err = cli(*args)
        assert code == 2, (args, err)
        assert pattern in err and "Traceback" not in err


def test_metg_vs_dependencies_figure_from_nearest_campaigns(cli, bin_dir, tmp_path):
    for radix in ("1", "3"):
        code, _, err = cli("-q", "metg", "serial", "--pattern", "nearest", "--radix", radix, "--width", "4",
                           "--steps", "10", "--start-iter", "256", "--reps", "1")
        assert code == 0, err
    assert cli("report", "--html", "deps.html")[0] == 0
    figures = list((tmp_path / "deps_figures").glob("metg_vs_deps_*.png"))
    assert len(figures) == 1 and is_png(figures[0])
    assert "METG vs dependencies per task" in (tmp_path / "deps.html").read_text()


def _descendants_running(pid: int, program: str) -> bool:
    """Whether a descendant of pid runs `program` (read from /proc: children, then cmdline)."""
    from pathlib import Path
    pending = [pid]
    while pending:
        parent = pending.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                pending += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
        try:
            if Path(f"/proc/{parent}/cmdline").read_bytes().split(b"\0")[0].decode() == program:
                return True
        except OSError:
            pass
    return False


def test_sigterm_kills_the_running_benchmark(tmp_path, bin_dir):
    import os
    import signal
    import subprocess
    import sys
    import time
    from harness_helpers import REPO

    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    proc = subprocess.Popen([sys.executable, "-m", "taskbench", "--db", str(tmp_path / "t.db"), "-q",
                             "run", "serial", "-steps", "100000", "-kernel", "compute_bound",
                             "-iter", "100000"], env=env, stderr=subprocess.PIPE, text=True)
    # SIGTERM once the benchmark runs: sent earlier (a loaded machine may take seconds to start
    # Python and the harness), it would meet Python's default handler, not the harness's.
    deadline = time.monotonic() + 60
    while not _descendants_running(proc.pid, str(bin_dir / "serial")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 130
    assert "interrupted" in proc.stderr.read()
    leftover = subprocess.run(["pgrep", "-f", "-steps 100000 -kernel compute_bound"], capture_output=True)
    assert leftover.stdout.strip() == b""


def test_a_sweep_says_how_many_runs_and_how_long_to_expect(cli):
    """Before it starts, a sweep says what to expect: the runs and wall time of the last sweep of
    the same systems and graph on this machine, or, the first time, the runs of the sweep's usual
    shape; its bar then starts from that total instead of growing from 0."""
    code, _, first = cli("metg", "serial", *SMALL, "--campaign", "one")
    assert code in (0, 5), first
    assert "expect about " in first and "the sweep's usual shape" in first
    con = sqlite3.connect(cli.db)
    runs, seconds = con.execute("SELECT count(*), sum(wall_seconds) FROM runs WHERE campaign='one' "
                                "AND key NOT LIKE 'trace%'").fetchone()
    code, _, second = cli("metg", "serial", *SMALL, "--campaign", "two")
    assert code in (0, 5), second
    from taskbench import units
    assert (f"expect about {runs} runs and {units.seconds(seconds)} of runs: the last sweep of these systems and "
            "this graph here (one) made as many") in second
