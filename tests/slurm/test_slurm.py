"""The harness against a real Slurm (slurm-wlm, munge) on the test cluster's hosts: srun,
salloc and sbatch paths, MPI ranks through srun's PMI plugins, the Python engines' processes as
srun steps, and Slurm's failures (a node lost, a time limit, scancel)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

from slurm_helpers import (GRAPH, REPO, SCRIPT, hosts_of, left_on_hosts, processes_on, runs, serial_totals,
                           wait_for_job)

# A batch job's environment is the submitting shell's: the project's commands on PATH.
JOB_PATH = f"{REPO}/.venv/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def test_srun_runs_a_task_on_each_host(slurm):
    got = slurm.run("srun", "-N", "3", "hostname")
    assert got.returncode == 0, got.stderr
    assert sorted(got.stdout.split()) == [slurm.name(k) for k in (1, 2, 3)]


def test_taskbench_hosts_lists_the_allocation_without_a_hosts_file(slurm):
    got = slurm.run("salloc", "-N", "3", "taskbench", "hosts")
    assert got.returncode == 0, got.stdout + got.stderr
    assert ".taskbench-slurm/job-" in got.stderr  # the allocation's description, not the hosts file
    for k in (1, 2, 3):
        assert re.search(rf"^{slurm.name(k)}\s+198\.18\.0\.{k}\s+1\s.*\byes$", got.stdout, re.M), got.stdout


@pytest.mark.parametrize("system,plugin", [("mpi_p2p", "pmix"), ("mpi_p2p_mpich", "pmi2")])
def test_mpi_ranks_start_with_srun_and_the_plugin_their_mpi_speaks(slurm, tmp_path, system, plugin):
    db = tmp_path / "runs.db"
    got = slurm.run("salloc", "-N", "2", "taskbench", "run", "--db", str(db), "--launcher", "srun", system, *GRAPH)
    assert got.returncode == 0, got.stdout + got.stderr
    (run,) = runs(db)
    argv = json.loads(run["argv"])
    assert argv[:2] == ["srun", f"--mpi={plugin}"] and "--nodes" in argv, argv
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPH)
    hosts = hosts_of(run)
    assert sorted(hosts) == [slurm.name(1), slurm.name(2)] and all(h["tasks"] > 0 for h in hosts.values()), hosts
    assert left_on_hosts(slurm) == []


@pytest.mark.parametrize("system", ["dask_distributed", "parsl"])
def test_python_engines_start_their_processes_as_srun_steps(slurm, tmp_path, system):
    db = tmp_path / "runs.db"
    got = slurm.run("salloc", "-N", "2", "taskbench", "run", "--db", str(db), "--launcher", "srun", system, *GRAPH,
                    timeout=180)
    assert got.returncode == 0, got.stdout + got.stderr
    (run,) = runs(db)
    assert "outlived" not in (run["reason"] or ""), run["reason"]  # its srun steps ended with it
    assert (run["tasks"], run["dependencies"]) == serial_totals(GRAPH)
    hosts = hosts_of(run)
    assert sorted(hosts) == [slurm.name(1), slurm.name(2)] and all(h["tasks"] > 0 for h in hosts.values()), hosts
    assert left_on_hosts(slurm) == []


def test_the_batch_example_stores_a_scaling_study_over_the_nodes(slurm, tmp_path):
    db, out = tmp_path / "batch.db", tmp_path / "job-%j.out"
    got = slurm.run("sbatch", "--parsable", "--nodes=2", f"--output={out}", "examples/slurm/metg-scaling.sbatch",
                    env={"TASKBENCH_DB": str(db), "QUICK": "1", "SYSTEMS": "mpi_p2p_mpich"})
    assert got.returncode == 0, got.stderr
    job = got.stdout.strip().split(";")[0]
    wait_for_job(slurm, job)
    log = (tmp_path / f"job-{job}.out").read_text()
    assert f"scaling-{job}:" in log, log[-3000:]
    stored = runs(db)
    assert stored, log[-3000:]
    assert [(r["key"], r["status"], r["reason"]) for r in stored if r["status"] != "ok"] == [], log[-3000:]
    on_both = [r for r in stored if r["report"] and len(hosts_of(r)) == 2]
    assert on_both, "no run spanned both nodes"
    for run in on_both:  # every task counted once, on the node that ran it
        assert sum(h["tasks"] for h in hosts_of(run).values()) == run["tasks"] > 0
        assert run["tasks"] == run["steps"] * run["width"]
    assert left_on_hosts(slurm) == []


def test_a_run_cut_short_by_the_job_time_limit_is_stored_as_a_timeout(slurm, tmp_path):
    db = tmp_path / "limit.db"
    long_run = f"taskbench run --db {db} --launcher srun --timeout 600 mpi_p2p_mpich -steps 100000 -width 2 " \
               "-kernel busy_wait -iter 1000000"
    got = slurm.run("sbatch", "--parsable", "--nodes=2", "--time=1", f"--output={tmp_path}/limit.out",
                    f"--wrap=PATH={JOB_PATH} {long_run}; echo status $?")
    assert got.returncode == 0, got.stderr
    wait_for_job(slurm, got.stdout.strip().split(";")[0])
    (run,) = runs(db)
    assert run["status"] == "timeout" and "time limit" in run["reason"], (run["status"], run["reason"])
    assert run["elapsed_seconds"] is None
    assert "status 3" in (tmp_path / "limit.out").read_text()
    assert left_on_hosts(slurm) == []


def test_scancel_of_the_harness_job_leaves_no_process_on_any_host(slurm, tmp_path):
    db = tmp_path / "cancel.db"
    long_run = f"taskbench run --db {db} --launcher srun --timeout 600 dask_distributed -steps 100000 -width 2 " \
               "-kernel busy_wait -iter 1000000"
    got = slurm.run("sbatch", "--parsable", "--nodes=2", f"--output={tmp_path}/cancel.out",
                    f"--wrap=PATH={JOB_PATH} {long_run}")
    assert got.returncode == 0, got.stderr
    job = got.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 60
    while len([p for p in processes_on(slurm, 2) if p not in slurm.daemons()]) < 2:  # a worker's step there
        assert time.monotonic() < deadline, "the job's processes never reached the second host"
        time.sleep(0.2)
    assert slurm.run("scancel", job).returncode == 0
    wait_for_job(slurm, job, within=60)
    assert left_on_hosts(slurm, within=15) == []


def test_a_node_lost_mid_run_fails_the_run_in_seconds_naming_it(own_slurm, tmp_path):
    db = tmp_path / "lost.db"
    run = subprocess.Popen(
        [str(SCRIPT), "--dir", str(own_slurm.dir), "--prefix", own_slurm.prefix, "run",
         "salloc", "-N", "2", "taskbench", "run", "--db", str(db), "--launcher", "srun", "--timeout", "300",
         "mpi_p2p", "-steps", "100000", "-width", "2", "-kernel", "busy_wait", "-iter", "100000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    second = own_slurm.name(2)
    while not any(_comm(p) == "mpi_p2p" for p in processes_on(own_slurm, 2)):
        assert time.monotonic() < deadline and run.poll() is None, "no rank started on the second host"
        time.sleep(0.2)
    # The node dies: its slurmd, its job step and its ranks.
    anchor = int((own_slurm.dir / "h2.pid").read_text())
    for pid in processes_on(own_slurm, 2):
        if pid != anchor:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    killed_at = time.monotonic()
    run.communicate(timeout=120)
    took = time.monotonic() - killed_at
    (stored,) = runs(db)
    assert stored["status"] == "failed", (stored["status"], stored["reason"])
    assert stored["reason"].startswith(f"host {second} (198.18.0.2) stopped answering"), stored["reason"]
    assert took < 20, f"the run took {took:.0f} s to fail after its node died"


def _comm(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""
