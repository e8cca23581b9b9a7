"""A campaign's analysis computed once and reused: in this process (a sweep's settle lines, its
table and its report read the same one) and across processes (`taskbench report` after `taskbench
metg`), from a cache folder of pickled analyses.

An analysis is a function of what it reads: the campaign (its parameters, machine, status), its
measured runs (trace runs are not among them), the stored peaks, the other METG campaigns'
published results (the machine's drift between campaigns, measure/metg/rerun.py), and the code and the
numerical libraries that compute it. Its key is a hash of all of them, so any change anywhere is a
new key and a new analysis; nothing is ever served stale. The folder is $TASKBENCH_CACHE, else
$XDG_CACHE_HOME/taskbench, else ~/.cache/taskbench; one file per campaign and store, replaced
when its key changes. A folder that cannot be written costs time only: the analysis is computed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import tempfile
from importlib.metadata import version
from pathlib import Path

from taskbench.measure.analysis import CampaignAnalysis, analyze
from taskbench.measure.traces import KEY_PREFIX

_memory: dict[str, tuple[str, CampaignAnalysis]] = {}  # (store, campaign) slot -> (key, analysis)
IN_MEMORY = 16  # analyses a process keeps (a test session opens hundreds of stores)
ON_DISK = 200  # files the cache folder keeps of each kind, the least recently written going first


def folder() -> Path:
    if os.environ.get("TASKBENCH_CACHE"):
        return Path(os.environ["TASKBENCH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "taskbench"


@functools.cache
def code_stamp() -> str:
    """The harness's code and the libraries its numbers come from: a change to either is a new
    analysis (and, in the report, new figures)."""
    # Versions from the packages' metadata: importing matplotlib would cost more than the lookup saves.
    digest = hashlib.sha256(" ".join(version(p) for p in ("numpy", "scipy", "matplotlib")).encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    from taskbench.registry.catalog import registry_entries  # colours, processors
    digest.update(repr(sorted(registry_entries().items())).encode())
    return digest.hexdigest()


def key_of(store, campaign: dict) -> str:
    """The hash of everything campaign's analysis reads (see the module's docstring)."""
    name = campaign["name"]
    runs = store.db.execute("SELECT COUNT(*), MAX(id) FROM runs WHERE campaign=? AND key NOT LIKE ?",
                            (name, KEY_PREFIX + "%")).fetchone()
    peaks = store.db.execute("SELECT COUNT(*), MAX(runs.id) FROM runs JOIN campaigns ON campaigns.name = runs.campaign"
                             " WHERE campaigns.kind='peak'").fetchone()
    others = [(c["name"], c.get("created"), c.get("machine_id"), c.get("params"), c.get("results"))
              for c in store.campaigns("metg") if c["name"] != name]
    own = {k: v for k, v in campaign.items() if k != "results"}  # what it publishes is its output
    text = json.dumps([own, tuple(runs), tuple(peaks), others, code_stamp()], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _slot(store, name: str) -> str:
    return hashlib.sha256(f"{Path(store.path).resolve()}\0{name}".encode()).hexdigest()[:32]


def analysis(store, name: str) -> CampaignAnalysis:
    """analyze(store, name), or the same analysis computed before from the same data. The
    campaign record is always the store's own now (its results and status as they stand)."""
    campaign = store.campaign(name)
    key, slot = key_of(store, campaign), _slot(store, name)
    found = _memory.get(slot)
    if found is None or found[0] != key:
        found = (key, _load(slot, key) or _save(slot, key, analyze(store, name)))
        _memory.pop(slot, None)
        _memory[slot] = found
        while len(_memory) > IN_MEMORY:
            del _memory[next(iter(_memory))]
    found[1].campaign = campaign
    return found[1]


def _path(slot: str) -> Path:
    return folder() / "analyses" / f"{slot}.pickle"


def _load(slot: str, key: str) -> CampaignAnalysis | None:
    try:
        with open(_path(slot), "rb") as f:
            stored_key, found = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
        return None  # none yet, or another version's: computed again
    return found if stored_key == key else None


def _save(slot: str, key: str, found: CampaignAnalysis) -> CampaignAnalysis:
    path = _path(slot)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed: a reader in another process never sees half a file.
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            pickle.dump((key, found), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(f.name, path)
        prune(path.parent)
    except OSError:
        pass  # a cache that cannot be written only costs the next reader the time to compute it
    return found


def prune(where: Path, keep: int = ON_DISK) -> None:
    """The folder's `keep` most recently written files, the others removed: a cache of stores
    and campaigns that come and go (every test's) stays bounded."""
    files = sorted(where.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in files[keep:]:
        stale.unlink(missing_ok=True)
