"""native's instructions per task, a cost that no load on the machine can move: the empty-kernel
stencil_1d under callgrind at 200 and 400 steps × 2 columns on one worker, the difference of the
two runs' instruction counts over the difference in tasks (start-up and shutdown cancel out), as
bench/task_cost_callgrind.py measures it. It fails when the count grows by more than 20% over the
baseline below.

The binary is a -DTASKBENCH_NATIVE=OFF build of the checkout (build-callgrind/, configured once
and brought up to date by each run, bench/task_cost_callgrind.portable_build; or the build named
by TASKBENCH_CALLGRIND_BUILD_DIR, as it is): valgrind 3.19 stops at the first AVX-512
instruction, which the -march=native release build holds on a CPU that has it, and the x86-64
baseline build executes the same instructions on every x86 CPU. One worker: with two, the waiting
worker's polling is counted too (4,840-4,910 per task in three runs, against 713 with one).
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from systems import ROOT, registry

sys.path.insert(0, str(ROOT / "bench"))
import task_cost_callgrind  # noqa: E402

# 629 instructions per task: native (portable Release build, GCC 12.2, Debian 12), measured
# 2026-12-05 on an Intel Xeon (2-vCPU VM) by
#   bench/task_cost_callgrind.py --portable --workers 1 native      (its "(total)" line)
# the same in every run (713 before periodic graphs were replayed without barriers, when a
# 50-row block was built per run, and homed nodes ran through the generic task path; the same
# within 0.03% with OPENBLAS_CORETYPE=Haswell, Prescott or unset).
BASELINE = 629
GROWTH = 1.20  # fails above BASELINE × GROWTH


def test_native_instructions_per_task_stay_within_20_percent_of_the_baseline():
    missing = [tool for tool in ("valgrind", "callgrind_annotate") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (Debian's valgrind: scripts/install-deps.sh)")
    build = os.environ.get("TASKBENCH_CALLGRIND_BUILD_DIR")
    build = Path(build) if build else task_cost_callgrind.portable_build(["native"])
    native = next(s for s in registry() if s.name == "native")
    counts = task_cost_callgrind.per_task(native, build, steps=(200, 400), width=2, workers=1)
    total = counts["(total)"]
    top = "\n".join(f"{n:8.0f}  {f}" for f, n in sorted(counts.items(), key=lambda kv: -kv[1])[:15])
    assert total <= BASELINE * GROWTH, (
        f"native executes {total:.0f} instructions per task, {total / BASELINE - 1:+.0%} over the baseline "
        f"{BASELINE} (limit +{GROWTH - 1:.0%}); inclusive per function:\n{top}")
