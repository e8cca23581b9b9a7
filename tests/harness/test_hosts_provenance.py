"""Runs across a cluster description's hosts: each host's own account of itself kept as
provenance, their own machine key (so their peak is theirs), the description of the first N
hosts a scaling study runs on, and the study's plan over 1..N hosts."""
from __future__ import annotations

import platform

import pytest

from harness_helpers import REPO
from taskbench import provenance
from taskbench.errors import UserError
from taskbench.hosts import facts as host_facts
from taskbench.hosts.description import first_hosts, read_cluster
from taskbench.registry import Registry
from taskbench.registry.locations import find_layout
from taskbench.studies import PRESETS, execute
from taskbench.studies.presets import scaling


def local_cluster(tmp_path, cores=(2, 1, 4)):
    """Hosts that are this machine: `env` as the start method runs the command here."""
    path = tmp_path / "hosts.toml"
    path.write_text("".join(f'[[host]]\nname = "n{k}"\naddress = "10.9.0.{k}"\ncores = {c}\nstart = ["env"]\n\n'
                            for k, c in enumerate(cores, 1)))
    return read_cluster(path)


def test_each_host_says_what_it_is(tmp_path):
    cluster = local_cluster(tmp_path)
    facts = host_facts.described(cluster)
    assert [f["name"] for f in facts] == ["n1", "n2", "n3"]
    assert [f["cores"] for f in facts] == [2, 1, 4]
    assert all(f["hostname"] == platform.node() and f["cpu_model"] == provenance.machine()["cpu_model"]
               for f in facts), facts
    key = provenance.cluster_id(facts)
    assert key.startswith("hosts:n1|") and key != provenance.machine_id()
    assert provenance.cluster_id(facts[:2]) != key  # two hosts of three are another machine


def test_an_unreachable_host_is_a_problem_named_once(tmp_path):
    path = tmp_path / "hosts.toml"
    path.write_text('[[host]]\nname = "gone"\naddress = "10.9.0.9"\ncores = 1\nstart = ["false"]\n')
    facts, problem = host_facts.probe(read_cluster(path).hosts[0])
    assert facts == {} and problem.startswith("unreachable through `false` (exit 1")


def test_the_first_hosts_are_a_description_of_their_own(tmp_path):
    cluster = local_cluster(tmp_path)
    two = first_hosts(cluster, 2)
    assert two.hosts == cluster.hosts[:2] and two.path.parent == cluster.path.parent
    assert read_cluster(two.path) == two
    before = two.path.stat().st_mtime_ns
    assert first_hosts(cluster, 2).path == two.path and two.path.stat().st_mtime_ns == before  # kept as it is
    assert first_hosts(cluster, 3) is cluster
    for count in (0, 4):
        with pytest.raises(UserError, match=f"the first {count} hosts of 3"):
            first_hosts(cluster, count)


def test_scaling_over_hosts_runs_every_core_of_the_first_n(tmp_path):
    cluster = local_cluster(tmp_path, cores=(2, 1, 4))
    grid = scaling.hosts_grid(["mpi_p2p"], quick=True, reps=1, cluster=cluster)
    by_hosts = {(r.point["mode"], r.point["iter"], r.hosts): r for r in grid}
    assert sorted({r.hosts for r in grid}) == [1, 2, 3]
    for n, cores in ((1, 2), (2, 3), (3, 7)):
        weak, strong = by_hosts[("weak", 1024, n)], by_hosts[("strong", 1024, n)]
        assert weak.cores == strong.cores == cores
        assert weak.flags[weak.flags.index("-width") + 1] == str(cores)  # a column per core used
        assert strong.flags[strong.flags.index("-width") + 1] == "7"  # the whole problem, always
    sweeps = scaling.hosts_metg_sweeps(True, cluster)
    assert [(s.label, s.settings["width"], len(s.settings["cluster"])) for s in sweeps] == \
        [("hosts1", 2, 1), ("hosts2", 3, 2), ("hosts3", 7, 3)]


def test_a_study_across_hosts_plans_only_what_can_cross_them(tmp_path):
    registry = Registry(find_layout())
    cluster = local_cluster(tmp_path)
    with pytest.raises(UserError, match="--hosts: study imbalance runs on this machine only \\(across hosts: scaling"):
        execute.campaign_params(PRESETS["imbalance"], registry, REPO / "build", ["native"], True, 1, 60, 0, "p",
                                cluster)
    available = [s for s in ("mpi_p2p", "native") if registry.get(s).available]
    if available != ["mpi_p2p", "native"]:
        pytest.skip("mpi_p2p and native are not both built here")
    params = execute.campaign_params(PRESETS["scaling"], registry, REPO / "build", available, True, 1, 60, 0, "p",
                                     cluster)
    assert params["unavailable"] == {"native": "its local launcher runs on this machine only"}
    assert {g["system"] for g in params["grid"]} == {"mpi_p2p"}
    assert params["hosts"]["path"] == str(cluster.path) and len(params["hosts"]["hosts"]) == 3
    assert [s["label"] for s in params["sweeps"]] == ["hosts1", "hosts2", "hosts3"]
