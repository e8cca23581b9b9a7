"""The report's figures drawn once and reused: drawing is most of a report's time (a quick
start's ten figures, PNG and SVG, took about 5 s of its 8), and a figure is a function of its
campaign's analysis (measure/analysis_cache.py's key: the campaign, its runs, the peaks, the
other campaigns' results, the code), its trace runs, its name and caption. Kept beside the
analyses, in the cache folder; a figure the data cannot make is remembered as such."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from taskbench.measure import analysis_cache
from taskbench.measure.traces import KEY_PREFIX

NONE = b""  # a figure its data cannot make: nothing to show, nothing to draw again


def campaign_stamp(store, name: str) -> str:
    """What a campaign's figures are drawn from: its analysis's key and its traced runs."""
    traces = store.db.execute("SELECT COUNT(*), MAX(id) FROM runs WHERE campaign=? AND key LIKE ?",
                              (name, KEY_PREFIX + "%")).fetchone()
    return f"{analysis_cache.key_of(store, store.campaign(name))}/{tuple(traces)}"


def _key(stamp: str, name: str, caption: str) -> str:
    return hashlib.sha256(f"{stamp}\0{name}\0{caption}".encode()).hexdigest()


def _path(key: str, suffix: str) -> Path:
    return analysis_cache.folder() / "figures" / f"{key}.{suffix}"


def drawn(stamp: str, name: str, caption: str) -> tuple[bytes, bytes] | None:
    """(PNG, SVG) of the figure drawn before from the same data, (NONE, NONE) for one the data
    could not make, or None: not drawn yet."""
    key = _key(stamp, name, caption)
    try:
        return _path(key, "png").read_bytes(), _path(key, "svg").read_bytes()
    except OSError:
        return None


def keep(stamp: str, name: str, caption: str, png: bytes, svg: bytes) -> None:
    key = _key(stamp, name, caption)
    try:
        _path(key, "png").parent.mkdir(parents=True, exist_ok=True)
        for suffix, data in (("svg", svg), ("png", png)):  # the PNG last: drawn() needs both
            with tempfile.NamedTemporaryFile(dir=_path(key, suffix).parent, delete=False) as f:
                f.write(data)
            os.replace(f.name, _path(key, suffix))
        analysis_cache.prune(_path(key, "png").parent, 2 * analysis_cache.ON_DISK)
    except OSError:
        pass  # a cache that cannot be written only costs the next report the time to draw it
