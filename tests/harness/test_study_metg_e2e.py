"""`taskbench study systems --quick` with the built serial system, into a fresh store: the METG
table, the parent campaign and its sweep campaign, resuming, and the report's figure titled with
the paper's figure number. (The sweeps each study plans are checked in test_study_metg_plan.py;
one sweep here keeps CI fast.)"""
import sqlite3

from harness_helpers import is_png


def test_study_systems_quick_stores_its_sweep_and_reports(cli, bin_dir, tmp_path):
    code, out, err = cli("-q", "study", "systems", "--quick", "--systems", "serial", "--campaign", "sys")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["system", "pattern stencil_1d"]
    row = lines[1].split("\t")
    # Marked "(unreliable)" when this machine was busy meanwhile (measure/metg/reliability.py).
    cell = row[1].removesuffix(" (unreliable)")
    assert row[0] == "serial" and (cell.startswith("no METG") or 1e-9 < float(cell) < 1), row  # -q: seconds
    con = sqlite3.connect(cli.db)
    campaigns = con.execute("SELECT name, kind, status FROM campaigns ORDER BY name").fetchall()
    assert campaigns == [("sys", "study", "done"), ("sys-stencil_1d", "metg", "done")]
    flags = con.execute("SELECT flags FROM runs WHERE campaign='sys-stencil_1d' LIMIT 1").fetchone()[0]
    assert '"-steps", "100"' in flags and '"stencil_1d"' in flags
    stored = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    assert stored >= 3

    code, _, err = cli("study", "systems", "--quick", "--systems", "serial", "--resume", "sys")
    assert code == 0 and f"0 runs executed, {stored} reused from the store" in err

    assert cli("report", "--html", "r.html", "--campaign", "sys", "--campaign", "sys-stencil_1d")[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert "sys: METG(50%) of every system, stencil_1d, 1 node (paper Fig. 7 and Fig. 9a) (quick)" in page
    assert is_png(tmp_path / "r_figures" / "sys_study.png")
