"""A test cluster of 3 network-namespace hosts (scripts/test-cluster.sh), up for this folder's
tests and down after them, on every path: nothing of it stays behind."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from cluster_helpers import SCRIPT



@dataclass
class TestCluster:
    dir: Path
    prefix: str
    hosts_file: Path

    def run(self, *argv: str, timeout: float = 120, env: dict | None = None) -> subprocess.CompletedProcess:
        """argv on the first host, as from a cluster's login node."""
        return subprocess.run([str(SCRIPT), "--dir", str(self.dir), "--prefix", self.prefix, "run", *argv],
                              capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **(env or {})))


def namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("nsenter") is None:
        pytest.skip("the test cluster needs root, iproute2 and util-linux (nsenter)")
    directory = tmp_path_factory.mktemp("cluster") / "state"
    prefix = f"tbt{os.getpid() % 100000}"
    base = [str(SCRIPT), "--dir", str(directory), "--prefix", prefix]
    up = subprocess.run([*base, "up", "3"], capture_output=True, text=True, timeout=60)
    try:
        if up.returncode != 0:
            pytest.skip(f"cannot build the test cluster here: {up.stderr.strip()}")
        yield TestCluster(directory, prefix, Path(up.stdout.splitlines()[-1]))
    finally:
        subprocess.run([*base, "down"], capture_output=True, text=True, timeout=60)
        left = [ns for ns in namespaces() if ns.startswith(prefix + "-")]
        assert not left, f"test cluster namespaces left behind: {left}"
