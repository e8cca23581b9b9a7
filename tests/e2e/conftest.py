import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


import pytest  # noqa: E402

from systems import PROBE, ROOT  # noqa: E402

sys.path.insert(0, str(ROOT / "python"))
from taskbench.process import leftovers  # noqa: E402

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

