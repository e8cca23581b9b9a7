"""`taskbench study scaling --quick` with the built native system, into a fresh store: the grid
runs, a METG sweep per core count whose runs all use that many cores (threads), the no-runtime
floor recorded at each core count that has one, the table's METG rows, resuming. (MPI ranks per
core count: test_study_scaling.py checks the launch options.)"""

import json
import sqlite3

import pytest

from taskbench.measure.placement import PROBE
from taskbench.provenance import available_cores


def test_study_scaling_quick_metg_vs_cores_and_the_floor(cli, bin_dir, tmp_path):
    if available_cores() < 2:
        pytest.skip("one CPU: no core count to scale to, and no floor")
    if not (bin_dir / "native").is_file() or not (bin_dir.parent / "bench" / PROBE).is_file():
        pytest.skip(f"build/bin/native or build/bench/{PROBE} is missing")
    code, out, err = cli("study", "scaling", "--quick", "--reps", "1", "--systems", "native", "--campaign", "sc")
    assert code == 0, err
    counts = [1] + [c for c in (2, 4, 8, 16, 32, 64, 128) if c < available_cores()] + [available_cores()]
    con = sqlite3.connect(cli.db)
    campaigns = con.execute("SELECT name, kind, status, machine FROM campaigns ORDER BY created, rowid").fetchall()
    assert [(n, k, s) for n, k, s, _ in campaigns] == (
        [("sc", "study", "done")] + [(f"sc-cores{c}", "metg", "done") for c in counts])
    machine = {n: json.loads(m) for n, _, _, m in campaigns}
    for c in counts:
        runs = con.execute("SELECT cores, flags FROM runs WHERE campaign=?", (f"sc-cores{c}",)).fetchall()
        assert runs and {cores for cores, _ in runs} == {c}, c
        assert all(f'"-width", "{c}"' in flags and '"-steps", "100"' in flags for _, flags in runs)
        floor = machine[f"sc-cores{c}"].get("no_runtime_floor")
        if c == 1:
            assert floor is None  # one worker exchanges nothing
        else:
            assert (floor["workers"], floor["width"]) == (c, c) and floor["metg_lower_bound_seconds"] > 0
    grid = con.execute("SELECT count(*) FROM runs WHERE campaign='sc'").fetchone()[0]
    assert grid == 2 * 2 * len(counts)  # weak and strong, 2 sizes, 1 repetition

    rows = [line.split("\t") for line in out.strip().splitlines()]
    assert rows[0][:4] == ["measure", "-iter", "system", "on 1 core"]
    metg = [r for r in rows if r[0] == "METG(50%)"]
    assert [r[2] for r in metg] == ["native", "no-runtime floor"]
    floors, natives = metg[1][3:3 + len(counts)], metg[0][3:3 + len(counts)]
    assert floors[0] == "— (one worker exchanges nothing)" and all(f.endswith("s") for f in floors[1:])
    # At every core count native has a METG or says why not; beside a floor, with the ratio.
    assert all("x floor)" in cell or cell.startswith("no METG") for cell in natives[1:]), natives

    stored = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    code, _, err = cli("study", "scaling", "--quick", "--reps", "1", "--systems", "native", "--resume", "sc")
    assert code == 0 and f"0 runs executed, {stored} reused from the store" in err
