"""The host agent as charmrun's remote shell: charmrun calls it as ssh (`HOST -l USER -o OPTION...
COMMAND`) with the script to run on stdin; the host's start method replaces ssh's options."""
from __future__ import annotations

import os
import subprocess
import sys

from taskbench.launch.host_agent import command_words


def test_ssh_options_before_the_command_are_dropped():
    words = ["-l", "root", "-o", "KbdInteractiveAuthentication=no", "-o", "PasswordAuthentication=no",
             "/bin/bash", "-f"]
    assert command_words(words) == ["/bin/bash", "-f"]
    assert command_words(["orted", "-mca", "x"]) == ["orted", "-mca", "x"]


def test_charmruns_call_runs_its_script_on_the_host(tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "n1"\naddress = "10.0.0.1"\ncores = 1\nstart = ["env", "ON_HOST=n1"]\n')
    got = subprocess.run([sys.executable, "-m", "taskbench.launch.host_agent", "10.0.0.1", "-l", "root", "-o",
                          "PasswordAuthentication=no", "/bin/sh", "-f"], input='echo "ran on $ON_HOST"\n',
                         capture_output=True, text=True, timeout=30, env={**os.environ, "TASKBENCH_HOSTS": str(hosts)})
    assert (got.returncode, got.stdout) == (0, "ran on n1\n"), got.stderr
