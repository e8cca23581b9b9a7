"""The host agent as charmrun's remote shell: charmrun calls it as ssh (`HOST -l USER -o OPTION...
COMMAND`) with the script to run on stdin; the host's start method replaces ssh's options. And
what it answers a call it cannot read (status 2) and a host it cannot reach (255, as ssh)."""
from __future__ import annotations

import os
import subprocess
import sys

from taskbench.hosts.agent import command_words


def test_ssh_options_before_the_command_are_dropped():
    words = ["-l", "root", "-o", "KbdInteractiveAuthentication=no", "-o", "PasswordAuthentication=no",
             "/bin/bash", "-f"]
    assert command_words(words) == ["/bin/bash", "-f"]
    assert command_words(["orted", "-mca", "x"]) == ["orted", "-mca", "x"]


def test_charmruns_call_runs_its_script_on_the_host(tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "n1"\naddress = "10.0.0.1"\ncores = 1\nstart = ["env", "ON_HOST=n1"]\n')
    got = subprocess.run([sys.executable, "-m", "taskbench.hosts.agent", "10.0.0.1", "-l", "root", "-o",
                          "PasswordAuthentication=no", "/bin/sh", "-f"], input='echo "ran on $ON_HOST"\n',
                         capture_output=True, text=True, timeout=30, env={**os.environ, "TASKBENCH_HOSTS": str(hosts)})
    assert (got.returncode, got.stdout) == (0, "ran on n1\n"), got.stderr


def test_a_flag_it_does_not_take_is_one_usage_line_and_status_2(tmp_path):
    """ssh's own flags before the host (Hydra's -x) are taken; another is a mistake of the call,
    not a host lost (status 255 is ssh's for that, which the runner reads as one)."""
    for argv in (["--bogus"], ["--bogus", "n1", "true"], ["-x"], []):
        got = subprocess.run([sys.executable, "-m", "taskbench.hosts.agent", *argv], capture_output=True,
                             text=True, timeout=30, env={**os.environ, "TASKBENCH_HOSTS": str(tmp_path / "none")})
        assert got.returncode == 2, (argv, got.stderr)
        assert got.stderr.count("\n") == 1 and got.stderr.startswith("host_agent: usage: host_agent "), got.stderr


def test_a_host_not_described_is_status_255_as_ssh_says_it(tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "n1"\naddress = "10.0.0.1"\ncores = 1\nstart = ["env"]\n')
    for description, said in ((hosts, f"host_agent: no host 'n2' in {hosts}"), (tmp_path / "none", "no such file")):
        got = subprocess.run([sys.executable, "-m", "taskbench.hosts.agent", "n2", "true"], capture_output=True,
                             text=True, timeout=30, env={**os.environ, "TASKBENCH_HOSTS": str(description)})
        assert got.returncode == 255 and got.stderr.count("\n") == 1 and said in got.stderr, got.stderr
