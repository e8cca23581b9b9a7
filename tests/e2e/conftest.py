import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


import pytest  # noqa: E402

from systems import PROBE, ROOT  # noqa: E402

sys.path.insert(0, str(ROOT / "python"))
from taskbench.launch import leftovers  # noqa: E402

# Every process a test starts inherits this, so that its probe stays readable in /proc after
# the process sets its title (leftovers.KEEP_ENVIRON): else "nothing left" would pass unseen.
os.environ.update(leftovers.KEEP_ENVIRON)


@pytest.fixture
def probe():
    """A fresh marker for PROBE; fails the test if a process carrying it outlives it."""
    marker = leftovers.new_marker()
    yield marker
    left = [leftovers.describe(p) for p in leftovers.processes_with(PROBE, marker)]
    leftovers.kill_all(PROBE, marker)
    assert not left, f"left running: {left}"


# --share K/N (the test command's BLAS stages, scripts/test.sh): of the tests parametrized by a
# system, run those of share K of N (the systems in name order, every N-th from the K-th), and
# those of serial and native always. Each OPENBLAS_CORETYPE then runs a different share: every
# system's dgemm path runs under one forced core type (and under the CPU's own in the main stage)
# instead of all of them under each, which proved nothing new: the kernel is the core's.
def pytest_addoption(parser):
    parser.addoption("--share", metavar="K/N", help="run the system-parametrized tests of share K of N")


ALWAYS = ("serial", "native")


def share_of(names: list[str], share: str) -> set[str]:
    k, n = (int(part) for part in share.split("/"))
    if not 0 <= k < n:
        raise pytest.UsageError(f"--share {share}: K must be in 0..N-1")
    ordered = sorted(set(names) - set(ALWAYS))
    return set(ordered[k::n]) | set(ALWAYS)


def pytest_collection_modifyitems(config, items):
    share = config.getoption("--share")
    if not share:
        return
    systems = {item: item.callspec.params["system"] for item in items
               if hasattr(item, "callspec") and "system" in item.callspec.params}
    name = {item: getattr(s, "name", s) for item, s in systems.items()}
    kept = share_of(list(name.values()), share)
    deselected = [item for item in items if item in name and name[item] not in kept]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
