"""`taskbench study communication --simulate PLATFORM --nodes N` (studies/simulated_study.py): a
METG study's sweeps run by mpi_p2p's SimGrid build on a simulated platform, a sweep per output
size and node count, labelled SIMULATED in the table and the report. On the test platform
`small` with --quick (one graph, 3 output sizes, 2 nodes of 4 cores): about 10 s."""

import json
import sqlite3

from test_smpi import binary, taskbench


def test_a_simulated_communication_study_sweeps_each_output_size_on_the_platform(tmp_path):
    binary("mpi_p2p_smpi")
    html = tmp_path / "study.html"
    out = taskbench("-q", "study", "communication", "--quick", "--simulate", "small", "--nodes", "2",
                    "--steps", "10", "--campaign", "comm", "--html", str(html), tmp_path=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines() if line.startswith("mpi_p2p_smpi SIMULATED\t")]
    assert len(rows) == 1 and rows[0][1] == "2", out.stdout
    metgs = [float(cell) for cell in rows[0][2:]]
    assert len(metgs) == 3 and all(1e-7 < m < 1e-2 for m in metgs), rows
    assert metgs[2] > metgs[0]  # 64 KiB outputs cross the simulated links slower than 16 bytes

    con = sqlite3.connect(tmp_path / "t.db")
    parent = json.loads(con.execute("SELECT params FROM campaigns WHERE name='comm'").fetchone()[0])
    assert parent["simulated"]["platform"] == "small" and parent["simulated"]["nodes"] == [2]
    assert [s["label"] for s in parent["sweeps"]] == ["output16_2n", "output1024_2n", "output65536_2n"]
    children = con.execute("SELECT name, machine_id, params FROM campaigns WHERE name LIKE 'comm-%' "
                           "ORDER BY created, rowid").fetchall()  # created is to the second
    assert [c[0] for c in children] == ["comm-output16_2n", "comm-output1024_2n", "comm-output65536_2n"]
    first, second = json.loads(children[0][2]), json.loads(children[1][2])
    for name, machine, params in children:
        params = json.loads(params)
        assert machine.startswith("simulated:small:") and machine.endswith(":2"), machine
        assert (params["width"], params["pattern"], params["radix"], params["plan"]) == (8, "spread", 5, "bisect")
        assert params["systems"] == ["mpi_p2p_smpi"] and params["steps"] == 10
    # each sweep after the first starts where the one before it crossed
    assert first["seeds"] == {} and second["seeds"]["mpi_p2p_smpi"] > 0
    page = html.read_text()
    assert "comm: METG(50%) vs output bytes per task" in page and "SIMULATED</span></h3>" in page
    assert "bytes 65536, 2 nodes SIMULATED" in page


def test_a_simulated_study_is_refused_where_it_cannot_run(tmp_path):
    out = taskbench("study", "imbalance", "--simulate", "small", "--nodes", "2", tmp_path=tmp_path)
    assert out.returncode == 2 and "--simulate: study imbalance is not a METG study" in out.stderr
    out = taskbench("study", "communication", "--nodes", "2", tmp_path=tmp_path)
    assert out.returncode == 2 and "--nodes goes with --simulate PLATFORM" in out.stderr
    out = taskbench("study", "communication", "--steps", "10", tmp_path=tmp_path)
    assert out.returncode == 2 and "--steps goes with --simulate" in out.stderr
    out = taskbench("study", "communication", "--values", "16", tmp_path=tmp_path)
    assert out.returncode == 2 and "--values goes with --simulate" in out.stderr
    out = taskbench("study", "communication", "--simulate", "small", "--values", "16,7", tmp_path=tmp_path)
    assert out.returncode == 2 and "--values: 7 not among study communication's values" in out.stderr
    out = taskbench("study", "communication", "--simulate", "small", "--systems", "serial", tmp_path=tmp_path)
    assert out.returncode == 2 and "--simulate: serial has no simulated build" in out.stderr
