"""The simulated platforms smpirun runs on (docs/simulation.md): SimGrid platform files, by name
(platforms/NAME.xml beside this file) or path.

The harness reads what it needs of one from its first <cluster>: the hosts' names in order
(prefix, radical, suffix), the cores of each, and a core's speed; a run of N nodes puts one
rank on each core of the first N hosts (the hostfile smpirun reads)."""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from taskbench.errors import EXIT_USAGE, UserError, did_you_mean

PLATFORMS_DIR = Path(__file__).resolve().parent / "platforms"
_SPEED_UNITS = {"f": 1.0, "kf": 1e3, "Mf": 1e6, "Gf": 1e9, "Tf": 1e12, "Pf": 1e15}


def names() -> list[str]:
    """The platforms this harness ships."""
    return sorted(p.stem for p in PLATFORMS_DIR.glob("*.xml"))


def _speed(text: str, where: str) -> float:
    found = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kMGTP]?f)\s*", text)
    if not found:
        raise UserError(f"{where}: speed '{text}' is not FLOP/s as SimGrid writes it (e.g. 39.5Gf)", EXIT_USAGE)
    return float(found.group(1)) * _SPEED_UNITS[found.group(2)]


def _radical(text: str, where: str) -> list[int]:
    """A cluster's radical ("0-2687" or "0-3,8,10-11") as its host numbers, in order."""
    numbers = []
    for part in text.split(","):
        bounds = part.strip().split("-")
        if not all(b.isdigit() for b in bounds) or len(bounds) > 2:
            raise UserError(f"{where}: radical '{text}' is not a list of numbers and ranges", EXIT_USAGE)
        numbers += range(int(bounds[0]), int(bounds[-1]) + 1)
    return numbers


@dataclass(frozen=True)
class Platform:
    name: str
    path: Path
    hosts: tuple[str, ...] | None  # the cluster's host names, in order; None: not read (Simulation.as_stored)
    cores_per_node: int
    core_flops: float  # FLOP/s of one core
    sha256: str  # of the file: a changed platform is another platform

    def hostfile(self, nodes: int) -> str:
        """smpirun's hostfile for `nodes` nodes: each of the first hosts once per core."""
        return "".join(f"{host}\n" * self.cores_per_node for host in self.hosts[:nodes])


def find(name_or_path: str) -> Platform:
    """A shipped platform by name, or a platform file by path."""
    path = Path(name_or_path)
    if path.suffix != ".xml":
        path = PLATFORMS_DIR / f"{name_or_path}.xml"
        if not path.is_file():
            raise UserError(f"--simulate {name_or_path}: no such platform{did_you_mean(name_or_path, names())} "
                            f"(shipped: {', '.join(names())}; or a SimGrid platform file, *.xml)", EXIT_USAGE)
    elif not path.is_file():
        raise UserError(f"--simulate {name_or_path}: no such file", EXIT_USAGE)
    where = f"--simulate {name_or_path}"
    data = path.read_bytes()
    try:
        cluster = ElementTree.fromstring(data).find(".//cluster")
    except ElementTree.ParseError as exc:
        raise UserError(f"{where}: not a platform file: {exc}", EXIT_USAGE)
    if cluster is None:
        raise UserError(f"{where}: the harness needs a <cluster> (its hosts, their cores and speed)", EXIT_USAGE)
    a = cluster.attrib
    hosts = tuple(f"{a.get('prefix', '')}{n}{a.get('suffix', '')}" for n in _radical(a.get("radical", ""), where))
    cores = a.get("core", "1")
    if not cores.isdigit() or int(cores) < 1:
        raise UserError(f"{where}: core '{cores}' is not a count of cores", EXIT_USAGE)
    return Platform(path.stem, path.resolve(), hosts, int(cores), _speed(a.get("speed", ""), where),
                    hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class Simulation:
    """A run's simulated machine: the platform's first `nodes` hosts."""
    platform: Platform
    nodes: int

    def __post_init__(self):
        if self.platform.hosts is not None and not 1 <= self.nodes <= len(self.platform.hosts):
            raise UserError(f"--nodes {self.nodes}: platform {self.platform.name} has "
                            f"{len(self.platform.hosts)} nodes", EXIT_USAGE)

    @property
    def cores(self) -> int:
        return self.nodes * self.platform.cores_per_node

    def params(self) -> dict:
        """What a campaign stores of it: its provenance, and enough to run it again."""
        p = self.platform
        return {"platform": p.name, "path": str(p.path), "sha256": p.sha256, "nodes": self.nodes,
                "cores_per_node": p.cores_per_node, "core_flops": p.core_flops}

    @classmethod
    def as_stored(cls, params: dict) -> "Simulation":
        """The simulation as a campaign stored it (params()), read without the platform's file,
        which may be gone since: its hosts' names are the file's (runnable())."""
        platform = Platform(params["platform"], Path(params["path"]), None, params.get("cores_per_node"),
                            params.get("core_flops"), params["sha256"])
        return cls(platform, params["nodes"])

    def runnable(self) -> "Simulation":
        """This simulation, ready to run on: one stored (as_stored) read again from its file."""
        return self if self.platform.hosts is not None else Simulation.from_params(self.params())

    @classmethod
    def from_params(cls, params: dict) -> "Simulation":
        """The stored simulation, its platform read again (a resumed campaign): refused where
        the file changed since, which would mix two platforms' runs in one campaign."""
        platform = find(params["path"])
        if platform.sha256 != params["sha256"]:
            raise UserError(f"platform {params['path']} changed since the campaign began (its runs would mix two "
                            "platforms): start a new campaign", EXIT_USAGE)
        return cls(platform, params["nodes"])
