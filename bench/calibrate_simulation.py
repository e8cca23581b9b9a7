#!/usr/bin/env python3
"""The per-message software overhead of a simulated platform, calibrated on one published point.

Finds o (seconds, SMPI's smpi/os and smpi/or, the same on the send and the receive side) for
which the simulated METG(50%) of a system on ONE node equals a target, by the secant method
on METG(o), each point one `taskbench -q metg SYSTEM --simulate COPY --nodes 1` on a copy of
the platform file with o written in. The multi-node points are never used: they are what the
calibrated platform is compared with (docs/simulation.md). Prints each step and the result.

  bench/calibrate_simulation.py                  # cori, mpi_p2p, the paper's 4.583 us, 100 steps
  bench/calibrate_simulation.py --target 4.583e-6 --steps 1000
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLATFORMS = ROOT / "python" / "taskbench" / "hosts" / "platforms"
OVERHEAD = re.compile(r'(<prop id="smpi/o[sr]" value=")0:([0-9.eE+-]+):0(")')


def metg(platform_text: str, overhead: float, args, folder: Path) -> float:
    copy = folder / f"o-{overhead:.6e}.xml"
    copy.write_text(OVERHEAD.sub(lambda m: f"{m.group(1)}0:{overhead:.6e}:0{m.group(3)}", platform_text))
    out = subprocess.run(["taskbench", "--db", str(folder / "calibrate.db"), "-q", "metg", args.system,
                          "--simulate", str(copy), "--nodes", "1", "--steps", str(args.steps)],
                         capture_output=True, text=True, check=True).stdout
    last = out.strip().splitlines()[-1].split("\t")  # the nodes table: nodes, system, METG, ...
    return float(last[2])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--platform", default="cori", help="a shipped platform's name (cori)")
    p.add_argument("--system", default="mpi_p2p")
    p.add_argument("--target", type=float, default=4.583e-6,
                   help="the 1-node METG(50%%) to match, seconds (the SC20 paper's MPI, stencil_1d: 4.583e-6)")
    p.add_argument("--steps", type=int, default=100)
    args = p.parse_args()
    text = (PLATFORMS / f"{args.platform}.xml").read_text()
    if len(OVERHEAD.findall(text)) != 2:
        sys.exit(f"{args.platform}.xml: expected smpi/os and smpi/or of the form 0:SECONDS:0")
    with tempfile.TemporaryDirectory(prefix="taskbench-calibrate-") as tmp:
        points = [(o, metg(text, o, args, Path(tmp))) for o in (0.5e-6, 1.0e-6)]
        for o, m in points:
            print(f"o = {o:.4e} s: METG {m:.4e} s")
        for _ in range(6):
            (o0, m0), (o1, m1) = points[-2:]
            o = o1 + (args.target - m1) * (o1 - o0) / (m1 - m0)
            m = metg(text, o, args, Path(tmp))
            points.append((o, m))
            print(f"o = {o:.4e} s: METG {m:.4e} s")
            if abs(m - args.target) <= 0.005 * args.target:
                break
    o, m = points[-1]
    print(f"calibrated: smpi/os = smpi/or = 0:{o:.3e}:0 gives METG {m:.4e} s on 1 node (target {args.target:.4e} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
