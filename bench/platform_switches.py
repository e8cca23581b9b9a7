"""Switches of a simulated platform (docs/simulation.md, "Sensitivities"): a copy of a platform
file with one of the things the model lacks switched on at a stated level, so that what it does
to the simulated METG can be measured against its level rather than guessed.

- noise: per-node OS noise, detours per second on a node and the length of each (the cluster's
  host properties taskbench_noise_rate and taskbench_noise_seconds, read by the SMPI build:
  systems/common/mpi/simulated_noise.h);
- injection: the bandwidth a node's NIC injects, shared by all its cores' messages (SimGrid's
  per-host limiter link, the cluster's limiter_link attribute).

A switched platform is another platform: its file's hash is part of every campaign's machine, so
its runs never mix with the base platform's. A tool of bench/simulation_sensitivity.py, beside
it: the harness runs a switched platform as any other platform file (--simulate FILE)."""

from __future__ import annotations

import re
from pathlib import Path

from taskbench.hosts.simulated import Platform, find


def _cluster_tag(text: str) -> re.Match:
    found = re.search(r"<cluster\b[^>]*>", text)
    if found is None:
        raise ValueError("the platform has no <cluster>")
    return found


def switched_text(text: str, noise: tuple[float, float] | None = None, injection_bps: float | None = None,
                  source: str = "") -> str:
    """The platform file's text with the switches on: `noise` (detours per second on a node,
    seconds each) and `injection_bps` (bytes per second a node's NIC injects); `source` goes into
    a comment beside them (where the level comes from)."""
    tag = _cluster_tag(text)
    opening = tag.group(0)
    if injection_bps is not None:
        if "limiter_link=" in opening:
            raise ValueError("the cluster has a limiter_link already")
        opening = opening[:-1].rstrip() + f' limiter_link="{injection_bps:.6g}Bps">'
    props = ""
    if noise is not None:
        rate, seconds = noise
        props = (f'\n    <prop id="taskbench_noise_rate" value="{rate:.6g}"/>'
                 f'\n    <prop id="taskbench_noise_seconds" value="{seconds:.6g}"/>')
    note = f"\n    <!-- switched on (platform_switches.py): {source} -->" if source else ""
    return text[:tag.start()] + opening + note + props + text[tag.end():]


def write_switched(base: str, folder: Path, name: str, **switches) -> Platform:
    """The base platform (a name or a file) with the switches on, written as folder/NAME.xml."""
    platform = find(base)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.xml"
    path.write_text(switched_text(platform.path.read_text(), **switches))
    return find(str(path))
