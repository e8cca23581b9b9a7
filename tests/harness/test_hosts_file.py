"""The cluster description (hosts/description.py): what a user's file means, and one line for each
mistake in it, naming the file."""
from __future__ import annotations

import pytest

from taskbench.errors import UserError
from taskbench.hosts.description import read_cluster
from taskbench.launch.mpirun import across_hosts, hosts_network


def write(tmp_path, text):
    path = tmp_path / "hosts.toml"
    path.write_text(text)
    return path


def test_each_start_method_is_a_command_prefix(tmp_path):
    cluster = read_cluster(write(tmp_path, """
[[host]]
name = "a"
address = "10.1.0.1"
cores = 8

[[host]]
name = "b"
address = "10.1.0.2"
cores = 4
start = "srun"

[[host]]
name = "c"
address = "10.1.0.3"
cores = 2
start = ["nsenter", "--target", "42", "--net", "--"]
"""))
    a, b, c = cluster.hosts
    assert cluster.cores == 14 and len(cluster) == 3
    assert a.command(["echo", "two words"]) == ["ssh", "-o", "BatchMode=yes", "a", "echo 'two words'"]
    assert b.command(["echo", "x"]) == ["srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=b", "echo", "x"]
    assert c.shell("orted -x 1") == ["nsenter", "--target", "42", "--net", "--", "sh", "-c", "orted -x 1"]
    assert cluster.find("10.1.0.2") is b and cluster.find("c") is c and cluster.find("d") is None


@pytest.mark.parametrize("text, message", [
    ("", "no [[host]] table: the description lists at least one host"),
    ('[[host]]\nname = "a"\naddress = "x"\ncores = 1\nstrat = "ssh"\n', "host 1: unknown key 'strat'; did you mean start?"),
    ('[[host]]\nname = "a"\naddress = "x"\ncores = 0\n', "host 'a': cores: expected a whole number from 1, got 0"),
    ('[[host]]\nname = "a"\ncores = 1\n', "host 'a': address: expected the address its engines bind to, a string"),
    ('[[host]]\nname = "a"\naddress = "x"\ncores = 1\nstart = "rsh"\n', "host 'a': start: expected \"ssh\", \"srun\""),
    ('[[host]]\nname = "a"\naddress = "x"\ncores = 1\n[[host]]\nname = "a"\naddress = "y"\ncores = 1\n',
     "two hosts have the name 'a'"),
    ('[hosts]\n', "unknown table 'hosts'"),
    ('[[host]\n', "not valid TOML"),
])
def test_a_mistake_is_one_line_naming_the_file(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as caught:
        read_cluster(path)
    assert str(path) in str(caught.value) and message in str(caught.value), str(caught.value)


def test_open_mpi_keeps_to_the_network_that_holds_every_host(tmp_path):
    def cluster(*addresses):
        return read_cluster(write(tmp_path, "".join(
            f'[[host]]\nname = "h{k}"\naddress = "{a}"\ncores = 2\n' for k, a in enumerate(addresses))))
    assert hosts_network(cluster("198.18.0.1", "198.18.0.2", "198.18.0.3")) == "198.18.0.0/30"
    assert hosts_network(cluster("10.0.0.1", "10.0.1.1")) == "10.0.0.0/23"
    assert hosts_network(cluster("node1", "10.0.0.1")) is None  # a name: Open MPI chooses
    argv = across_hosts(cluster("198.18.0.1", "198.18.0.2"), threads=1)
    assert argv[:4] == ["--host", "198.18.0.1:2,198.18.0.2:2", "--map-by", "node"]
    assert argv[-9:] == ["--mca", "oob_tcp_if_include", "198.18.0.0/30", "--mca", "btl_tcp_if_include",
                         "198.18.0.0/30", "--mca", "btl_tcp_disable_family", "6"]


def test_a_lost_host_is_named_from_either_witness(tmp_path):
    from taskbench.launch.diagnosis import lost_host
    cluster = read_cluster(write(tmp_path, '[[host]]\nname = "n3"\naddress = "10.0.0.3"\ncores = 1\n'))
    open_mpi = ("ORTE has lost communication with a remote daemon.\n\n  HNP daemon   : [[1,0],0] on node n1\n"
                "  Remote daemon: [[1,0],2] on node 10.0.0.3\n\nThis is usually due to ...\n")
    assert lost_host(open_mpi, cluster).startswith("host n3 (10.0.0.3) stopped answering: the launcher lost")
    assert lost_host(open_mpi).startswith("host 10.0.0.3 stopped answering")
    agent = "ORTE was unable to reliably start one or more daemons.\nhost_agent: host n3 (10.0.0.3) stopped answering: x\n"
    assert lost_host(agent, cluster) == "host n3 (10.0.0.3) stopped answering: x"
    assert lost_host("mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).") is None


def test_a_system_that_lacks_a_network_is_refused_in_its_own_words(tmp_path):
    from pathlib import Path

    from taskbench.launch import LaunchOptions, command
    from taskbench.registry import System
    cluster = read_cluster(write(tmp_path, '[[host]]\nname = "a"\naddress = "10.1.0.1"\ncores = 1\n'))
    system = System(name="r", binary="r", folder=Path("."), binary_path=Path("/bin/r"),
                    not_across_hosts="its runtime has no network module")
    with pytest.raises(UserError, match="^--hosts: r cannot run across hosts here: its runtime has no network module$"):
        command(system, [], LaunchOptions(cluster=cluster))
