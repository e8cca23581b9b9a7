"""Platform switches (bench/platform_switches.py, docs/simulation.md "Sensitivities"): OS noise
injected by the SMPI build (systems/common/mpi/simulated_noise.h) and a node's NIC injection
bandwidth (SimGrid's limiter link), on copies of the test platform `small`. Each switch must
change the simulated time the way its model says, and leave a run deterministic. About 3 s."""

import json
import subprocess
import sys

from test_smpi import ENV, QUIET, ROOT, SMALL, SMPIRUN, binary

sys.path.insert(0, str(ROOT / "bench"))
from platform_switches import switched_text  # noqa: E402

STENCIL = ["-type", "stencil_1d", "-steps", "40", "-width", "8", "-kernel", "compute_bound", "-iter", "4096"]


def run(platform, args, tmp_path, nodes=2, cores=4):
    ranks = nodes * cores
    (tmp_path / "hosts").write_text("".join(f"node-{n}\n" * cores for n in range(nodes)))
    report = tmp_path / "report.json"
    argv = [str(SMPIRUN), *QUIET, "-platform", str(platform), "-hostfile", str(tmp_path / "hosts"), "-np", str(ranks),
            str(binary("mpi_p2p_smpi")), *args, "-expect-ranks", str(ranks), "-nodes", str(nodes), "-json", str(report)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(ENV, TMPDIR=str(tmp_path)))
    return out, (json.loads(report.read_text()) if out.returncode == 0 else None)


def platform(tmp_path, name, **switches):
    path = tmp_path / f"{name}.xml"
    path.write_text(switched_text(SMALL.read_text(), **switches) if switches else SMALL.read_text())
    return path


def elapsed(report):
    return report["elapsed_seconds"]


def test_noise_lengthens_a_run_by_whole_detours_and_stays_deterministic(tmp_path):
    quiet = run(platform(tmp_path, "quiet"), STENCIL, tmp_path)[1]
    noisy = platform(tmp_path, "noisy", noise=(2000.0, 50e-6))  # 2000 detours/s a node, 50 us each
    first, second = run(noisy, STENCIL, tmp_path)[1], run(noisy, STENCIL, tmp_path)[1]
    assert elapsed(first) == elapsed(second)  # seeded by rank: the same detours every run
    assert first["system_report"]["simulation"]["noise_rate"] == 2000
    # 8 ranks x 40 tasks of 52 us (128 x 4096 FLOPs at 10 GFLOP/s): 500 detours/s a core land
    # about once in each rank's 2.1 ms of computing, each delaying the stencil by up to its 50 us
    # (a neighbour waits for the late rank): far fewer than one a row of tasks
    extra = elapsed(first) - elapsed(quiet)
    assert 50e-6 <= extra <= 40 * 50e-6, (elapsed(quiet), elapsed(first))


def test_a_malformed_noise_property_ends_the_run_with_exit_2(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text(SMALL.read_text().replace('<prop id="taskbench_task_seconds"',
                                             '<prop id="taskbench_noise_rate" value="often"/>\n'
                                             '    <prop id="taskbench_task_seconds"'))
    out, _ = run(bad, STENCIL, tmp_path)
    assert out.returncode != 0
    assert "taskbench_noise_rate 'often' is not a non-negative number" in out.stderr


def test_a_narrow_nic_slows_large_messages_and_not_small_ones(tmp_path):
    wide, narrow = platform(tmp_path, "wide"), platform(tmp_path, "narrow", injection_bps=100e6)  # 100 MB/s a node
    large = [*STENCIL, "-output", "65536"]
    assert elapsed(run(narrow, large, tmp_path)[1]) > 2 * elapsed(run(wide, large, tmp_path)[1])
    small = [*STENCIL, "-output", "16"]  # 0.16 us a message at 100 MB/s, beside 52 us tasks
    assert elapsed(run(narrow, small, tmp_path)[1]) < 1.05 * elapsed(run(wide, small, tmp_path)[1])
