"""`taskbench study imbalance|discovery --quick` with the built systems, into a fresh store:
the table, the stored campaign, resuming, and the report's study sections. Systems that are not
built here must appear as "not available: <reason>" rows, never vanish."""

import sqlite3

from harness_helpers import is_png

from taskbench.registry import Registry
from taskbench.registry.locations import find_layout
from taskbench.studies.presets import discovery, imbalance


def _rows(out: str) -> list[list[str]]:
    lines = out.strip().splitlines()
    return [line.split("\t") for line in lines[1:]]


def _available() -> dict[str, str]:
    """system -> "" when it can run here, else its reason."""
    return {s.name: s.reason for s in Registry(find_layout())}


def _members(study) -> list[str]:
    """The systems the study runs by default: the registry's members of it."""
    return study.default_systems(Registry(find_layout()))


def test_study_imbalance_quick(cli, bin_dir, tmp_path):
    code, out, err = cli("-q", "study", "imbalance", "--quick", "--campaign", "imb")
    assert code == 0, err
    reasons = _available()
    rows = {(r[0], r[1]): r for r in _rows(out)}
    assert set(rows) == {(imbalance.label(p), s) for p in imbalance.PATTERNS for s in _members(imbalance.STUDY)}
    for (pattern, system), row in rows.items():
        if reasons[system]:
            assert row[2] == f"not available: {reasons[system]}"
        else:
            assert float(row[2]) > 0 and float(row[3]) > 0 and float(row[4]) > 0, row  # -q: seconds, ratios
    ran = [s for s in _members(imbalance.STUDY) if not reasons[s]]
    con = sqlite3.connect(cli.db)
    assert con.execute("SELECT kind, status FROM campaigns WHERE name='imb'").fetchone() == ("study", "done")
    count, keys = con.execute("SELECT count(*), count(DISTINCT key) FROM runs WHERE campaign='imb'").fetchone()
    assert count == keys == 4 * len(ran)

    code, _, err = cli("study", "imbalance", "--quick", "--resume", "imb")
    assert code == 0 and f"0 runs executed, {4 * len(ran)} reused from the store" in err

    assert cli("report", "--html", "r.html")[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert "<h2 id='studies'>Studies</h2>" in page and "imb: Tasks vs worksharing loops under load imbalance (quick)" in page
    assert is_png(tmp_path / "r_figures" / "imb_study.png")


def test_study_discovery_quick_resumes_and_reports(cli, bin_dir, tmp_path):
    code, out, err = cli("-q", "study", "discovery", "--quick", "--campaign", "disc")
    assert code == 0, err
    reasons = _available()
    rows = {(int(r[0]), r[1]): r for r in _rows(out)}
    assert set(rows) == {(it, s) for it in (64, 1024) for s in _members(discovery.STUDY)}
    for (it, system), row in rows.items():
        if reasons[system]:
            assert row[2] == f"not available: {reasons[system]}"
        elif system.startswith("native"):
            assert float(row[3]) > 0 and 0 < float(row[4]) <= 1, row  # -breakdown gives discovery (-q: s, fraction)
        else:  # the OpenMP task systems report it once they measure it, and say so until then
            assert row[3] == discovery.NO_DISCOVERY or float(row[3]) > 0, row

    # An interrupted study: two runs missing, the campaign unfinished. Re-running the same
    # command continues it and runs only those two.
    con = sqlite3.connect(cli.db)
    con.execute("DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE campaign='disc' LIMIT 2)")
    con.execute("UPDATE campaigns SET status='running' WHERE name='disc'")
    con.commit()
    code, _, err = cli("study", "discovery", "--quick")
    assert code == 0 and "continuing the unfinished disc" in err and "2 runs executed" in err
    assert con.execute("SELECT count(*) FROM campaigns").fetchone()[0] == 1

    assert cli("report", "--html", "r.html")[0] == 0
    page = (tmp_path / "r.html").read_text()
    assert "disc: Task-graph discovery vs execution per task (quick)" in page
    assert "Breakdown per task" in page and "<td>native_dynamic</td>" in page
    assert is_png(tmp_path / "r_figures" / "disc_study.png")


def test_study_usage_errors(cli):
    assert cli("study")[0] == 2
    code, _, err = cli("study", "nope")
    assert code == 2 and "unknown study 'nope'" in err
    code, out, _ = cli("-q", "study", "--list")
    assert code == 0 and [r[0] for r in _rows(out)] == ["imbalance", "discovery", "systems", "dependencies",
                                                         "patterns", "graphs", "communication", "scaling",
                                                         "gpu_offload"]
    sizes = {r[0]: r[3] for r in _rows(out)}
    assert sizes["dependencies"].startswith("6 / 6 METG sweeps") and sizes["communication"].startswith("7 / 3 ")
    assert sizes["scaling"].endswith(" runs")


def test_unavailable_system_is_a_row_with_its_reason(cli, fake_systems):
    code, out, err = cli("-q", "study", "imbalance", "--quick", "--systems", "serial,ghost")
    assert code == 0, err
    rows = {(r[0], r[1]): r for r in _rows(out)}
    assert rows[("nearest radix 5", "ghost")][2].startswith("not available: not built")
    assert float(rows[("nearest radix 5", "serial")][3]) > 0
    assert "warning: ghost is not available" in err


def test_bare_resume_needs_an_unfinished_study_of_that_preset(cli):
    code, _, err = cli("study", "discovery", "--resume")
    assert code == 2 and "no unfinished discovery study" in err
