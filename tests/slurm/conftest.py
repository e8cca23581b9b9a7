"""A Slurm on the test cluster (scripts/test-cluster.sh up N --slurm): munged, slurmctld on the
first host, a slurmd per host; up for this folder's tests and down after them, on every path.
Where it cannot start, the tests fail with its reason: they never skip (docs/slurm.md)."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from slurm_helpers import REPO, SCRIPT

UP_SECONDS = 90


@dataclass
class SlurmCluster:
    dir: Path
    prefix: str
    hosts: int

    def run(self, *argv: str, timeout: float = 120, env: dict | None = None,
            cwd: Path = REPO) -> subprocess.CompletedProcess:
        """argv on the first host (the login node), with SLURM_CONF set to this Slurm."""
        return subprocess.run([str(SCRIPT), "--dir", str(self.dir), "--prefix", self.prefix, "run", *argv],
                              capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              env=dict(os.environ, **(env or {})))

    def daemons(self) -> set[int]:
        """The pids that belong on the hosts: the namespace anchors and the Slurm daemons."""
        return {int(f.read_text()) for pattern in ("h*.pid", "slurm*.pid") for f in self.dir.glob(pattern)}

    def name(self, k: int) -> str:
        return f"{self.prefix}-h{k}"


def _bring_up(tmp_path_factory, label: str, hosts: int):
    if os.geteuid() != 0:
        pytest.fail("the test Slurm needs root (network namespaces, Slurm's daemons)", pytrace=False)
    directory = tmp_path_factory.mktemp(label) / "state"
    prefix = f"tbs{label[0]}{os.getpid() % 10000}"
    base = [str(SCRIPT), "--dir", str(directory), "--prefix", prefix]
    up = subprocess.run([*base, "up", str(hosts), "--slurm"], capture_output=True, text=True, timeout=UP_SECONDS)
    try:
        if up.returncode != 0:
            pytest.fail(f"the test Slurm did not start: {(up.stderr.strip().splitlines() or ['no message'])[-1]}",
                        pytrace=False)
        yield SlurmCluster(directory, prefix, hosts)
    finally:
        subprocess.run([*base, "down"], capture_output=True, text=True, timeout=60)
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        left = [line.split()[0] for line in out.splitlines() if line.startswith(prefix + "-")]
        assert not left, f"test cluster namespaces left behind: {left}"


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    """3 hosts, shared by the tests that leave every node up."""
    yield from _bring_up(tmp_path_factory, "shared", 3)


@pytest.fixture
def own_slurm(tmp_path_factory):
    """2 hosts of a test's own, for one that takes a node down."""
    yield from _bring_up(tmp_path_factory, "own", 2)
