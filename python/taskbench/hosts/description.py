"""The cluster description (docs/clusters.md): the hosts a run spans, one TOML file a user
writes once and passes as `--hosts FILE` (or TASKBENCH_HOSTS=FILE):

    [[host]]
    name = "node1"             # the host's name (what ssh or srun is given)
    address = "10.0.0.1"       # the address its engines bind to and are reached at
    cores = 16                 # the cores a run may use there
    start = "ssh"              # how a process starts there: "ssh" (the default, with the
                               # user's own ssh config), "srun" (inside a Slurm allocation), or a
                               # command prefix, e.g. ["nsenter", "--target", "4242", "--net", "--"]

The build must be at the same path on every host (a shared file system, as on every cluster):
`taskbench hosts` checks that, and every host, before a run relies on it.

This module only describes a cluster (reads, checks and writes descriptions): which one a run
spans is the --hosts option's choice (commands/options.py), and slurm.py makes one from a Slurm allocation."""

from __future__ import annotations

import os
import shlex
import socket
import tomllib
from dataclasses import dataclass
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError, did_you_mean

HOSTS_VARIABLE = "TASKBENCH_HOSTS"
START_METHODS = ("ssh", "srun")
KEYS = ("name", "address", "cores", "start")


@dataclass(frozen=True)
class Host:
    name: str
    address: str
    cores: int
    start: tuple[str, ...]  # the command prefix that runs a command on this host

    def command(self, argv: list[str]) -> list[str]:
        """argv run on this host (ssh hands its remote shell one line: quoted here)."""
        return [*self.start, shlex.join(argv)] if self.start[0] == "ssh" else [*self.start, *argv]

    def shell(self, line: str) -> list[str]:
        """A shell command line run on this host, as a remote-shell agent gets it."""
        return [*self.start, line] if self.start[0] == "ssh" else [*self.start, "sh", "-c", line]


@dataclass(frozen=True)
class Cluster:
    path: Path  # the description's file: the launchers' agents read it again on the hosts' side
    hosts: tuple[Host, ...]

    def __len__(self) -> int:
        return len(self.hosts)

    def find(self, name_or_address: str) -> Host | None:
        for host in self.hosts:
            if name_or_address in (host.name, host.address):
                return host
        return None

    @property
    def cores(self) -> int:
        return sum(h.cores for h in self.hosts)

    def slots(self) -> list[Host]:
        """One entry per core, the hosts in turn, each up to its cores: the k-th process of a
        launch goes to slots[k % len], so processes spread over the hosts first."""
        return [h for round_ in range(max(h.cores for h in self.hosts)) for h in self.hosts if round_ < h.cores]

    @classmethod
    def as_stored(cls, stored: dict) -> "Cluster":
        """The description as a campaign stored it ({"path": FILE, "hosts": [{"name", "address",
        "cores", ...}]}), read without its file, which may be gone since: a stored campaign's
        figures are read where it never ran. Its hosts' start methods are the file's (runnable())."""
        return cls(Path(stored["path"]), tuple(Host(h["name"], h["address"], h["cores"], ()) for h in stored["hosts"]))

    def runnable(self) -> "Cluster":
        """This description, ready to start processes on: one stored without its start methods
        (as_stored) read again from its file, as a resumed campaign finds its hosts now."""
        return self if all(h.start for h in self.hosts) else read_cluster(self.path)

    def here(self) -> Host | None:
        """The host whose address belongs to this machine (the harness on one of the hosts, as on
        the test cluster), or None (a login node outside the description)."""
        for host in self.hosts:
            try:
                with socket.socket(socket.AF_INET6 if ":" in host.address else socket.AF_INET) as probe:
                    probe.bind((host.address, 0))
                return host
            except OSError:
                continue
        return None


def _start_prefix(value, name: str, where: str) -> tuple[str, ...]:
    if value == "ssh":
        # BatchMode: a host that asks for a password fails at once instead of waiting for it.
        return ("ssh", "-o", "BatchMode=yes", name)
    if value == "srun":
        # One task on that node of the allocation, beside the steps already running there.
        return ("srun", "--nodes=1", "--ntasks=1", "--overlap", f"--nodelist={name}")
    if isinstance(value, list) and value and all(isinstance(w, str) and w for w in value):
        return tuple(value)
    raise UserError(f"{where}: start: expected \"ssh\", \"srun\" or a command prefix (a list of "
                    f"words), got {value!r}", EXIT_USAGE)


def _host(entry, index: int, path: Path) -> Host:
    where = f"{path}: host {index + 1}"
    if not isinstance(entry, dict):
        raise UserError(f"{where}: expected a [[host]] table", EXIT_USAGE)
    for key in entry:
        if key not in KEYS:
            raise UserError(f"{where}: unknown key '{key}'{did_you_mean(key, KEYS)} (keys: {', '.join(KEYS)})")
    name, address, cores = entry.get("name"), entry.get("address"), entry.get("cores")
    if not isinstance(name, str) or not name:
        raise UserError(f"{where}: name: expected the host's name, a non-empty string", EXIT_USAGE)
    where = f"{path}: host '{name}'"
    if not isinstance(address, str) or not address:
        raise UserError(f"{where}: address: expected the address its engines bind to, a string", EXIT_USAGE)
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise UserError(f"{where}: cores: expected a whole number from 1, got {cores!r}", EXIT_USAGE)
    return Host(name, address, cores, _start_prefix(entry.get("start", "ssh"), name, where))


def read_cluster(path: Path) -> Cluster:
    """The hosts of a description file, checked: one line naming the file for any mistake."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"--hosts {path}: no such file", EXIT_USAGE) from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"--hosts {path}: cannot read it ({e})", EXIT_USAGE) from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML ({e})", EXIT_USAGE) from None
    unknown = [key for key in data if key != "host"]
    if unknown:
        raise UserError(f"{path}: unknown table '{unknown[0]}' (a description holds [[host]] tables only)")
    entries = data.get("host")
    if not isinstance(entries, list) or not entries:
        raise UserError(f"{path}: no [[host]] table: the description lists at least one host", EXIT_USAGE)
    hosts = tuple(_host(entry, k, path) for k, entry in enumerate(entries))
    for field in ("name", "address"):
        seen = set()
        for host in hosts:
            value = getattr(host, field)
            if value in seen:
                raise UserError(f"{path}: two hosts have the {field} '{value}'", EXIT_USAGE)
            seen.add(value)
    return Cluster(path.resolve(), hosts)


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def description_text(entries: list[tuple[str, str, int, str | tuple[str, ...]]]) -> str:
    """A description of (name, address, cores, start) hosts; start: a method's name or a prefix."""
    def start(value) -> str:
        return _toml_string(value) if isinstance(value, str) else f"[{', '.join(map(_toml_string, value))}]"
    return "".join(f"[[host]]\nname = {_toml_string(name)}\naddress = {_toml_string(address)}\ncores = {cores}\n"
                   f"start = {start(how)}\n\n" for name, address, cores, how in entries)


def write_description(path: Path, text: str) -> Cluster:
    """Writes a description the harness made (unless it holds that already) and reads it back.
    Whole or not at all: an agent may be reading the file meanwhile."""
    if not path.is_file() or path.read_text() != text:
        partial = path.with_name(path.name + f".{os.getpid()}")
        partial.write_text(text)
        partial.replace(path)
    return read_cluster(path)


def first_hosts(cluster: Cluster, count: int) -> Cluster:
    """The description of the cluster's first `count` hosts (a scaling study's 1..N hosts): a
    file of its own beside the original, on the file system the hosts share, because the
    launchers' agents read the description again on the hosts' side."""
    if not 1 <= count <= len(cluster):
        raise UserError(f"{cluster.path}: the first {count} hosts of {len(cluster)}", EXIT_USAGE)
    if count == len(cluster):
        return cluster
    text = description_text([(h.name, h.address, h.cores, h.start) for h in cluster.hosts[:count]])
    return write_description(cluster.path.parent / f".{cluster.path.stem}.first{count}.toml", text)
