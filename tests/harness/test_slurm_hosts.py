"""`--hosts slurm`: the description made from the allocation the harness runs in. Slurm's own
answers come from a stand-in `scontrol` on PATH that prints what Slurm 22.05 prints (the real
Slurm runs in the Slurm test cluster's tests): this checks the reading of them."""
from __future__ import annotations

import os
import stat

import pytest

from taskbench.errors import UserError
from taskbench.hosts import slurm
from taskbench.commands.options import cluster_from

SCONTROL = """#!/bin/sh
case "$1 $2" in
  "show hostnames") echo node1; echo node2; echo node3 ;;
  "show node") for n in 1 2 3; do
      echo "NodeName=node$n Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=4 NodeAddr=10.7.0.$n NodeHostName=node$n State=IDLE"
    done ;;
  *) echo "scontrol: unexpected $*" >&2; exit 1 ;;
esac
"""


@pytest.fixture
def allocation(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    scontrol = bin_dir / "scontrol"
    scontrol.write_text(SCONTROL)
    scontrol.chmod(scontrol.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_ID", "77")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[1-3]")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "4(x2),2")
    monkeypatch.setenv("SLURM_SUBMIT_DIR", str(tmp_path))
    monkeypatch.delenv("TASKBENCH_HOSTS", raising=False)
    return tmp_path


def test_the_allocation_is_a_description_of_srun_hosts(allocation):
    cluster = cluster_from("slurm")
    assert cluster.path == allocation / ".taskbench-slurm" / "job-77.toml"
    assert [(h.name, h.address, h.cores) for h in cluster.hosts] == [
        ("node1", "10.7.0.1", 4), ("node2", "10.7.0.2", 4), ("node3", "10.7.0.3", 2)]
    assert cluster.hosts[0].start == ("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=node1")


def test_only_taskbench_hosts_takes_the_allocation_by_default(allocation):
    assert cluster_from(None) is None  # a run inside an allocation stays on its machine unless asked
    assert len(cluster_from(None, allocation_by_default=True)) == 3


def test_outside_an_allocation_slurm_is_refused(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_NODELIST", raising=False)
    with pytest.raises(UserError, match="^--hosts slurm: not inside a Slurm allocation"):
        cluster_from("slurm")


@pytest.mark.parametrize("text, nodes, counts", [("2(x3)", 3, [2, 2, 2]), ("4,2(x2),8", 4, [4, 2, 2, 8]), ("16", 1, [16])])
def test_cpus_per_node_is_read_as_slurm_writes_it(text, nodes, counts):
    assert slurm.cpus_per_node(text, nodes) == counts


@pytest.mark.parametrize("text, message", [("2(x2)", "names 2 nodes, the allocation has 3"), ("two", "not Slurm's form")])
def test_a_cpu_count_that_does_not_fit_is_one_line(text, message):
    with pytest.raises(UserError, match=message):
        slurm.cpus_per_node(text, 3)


@pytest.mark.parametrize("said, seconds", [("59:58", 3598), ("1:00:00", 3600), ("2-03:04:05", 183845),
                                           ("UNLIMITED", None), ("INVALID", None)])
def test_the_jobs_time_left_is_read_from_squeue(tmp_path, monkeypatch, said, seconds):
    squeue = tmp_path / "squeue"
    squeue.write_text(f"#!/bin/sh\n[ \"$1 $2 $3\" = \"-h -j 77\" ] && echo '{said}'\n")
    squeue.chmod(squeue.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_ID", "77")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[1-3]")
    monkeypatch.setattr(slurm, "_ends_at", None)
    left = slurm.seconds_left()
    assert left == (None if seconds is None else pytest.approx(seconds, abs=1))


def test_no_time_limit_outside_a_job(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.delenv("SLURM_JOB_NODELIST", raising=False)
    assert slurm.seconds_left() is None
