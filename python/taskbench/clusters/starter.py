"""The engines' clusters' starter: build/libexec/taskbench/dask_cluster, parsl_pools, ray_cluster
and spark_cluster each run this script (cmake/TaskbenchPython.cmake), which runs main() of the
clusters/ module its name stands for with the starter's arguments. The starters keep the names
the launchers give them (launch/cluster_launcher.py): a build's helpers need no renaming."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

# The starters' names (their helper programs'): each runs the module of clusters/ named as it is,
# less `_cluster` (dask_cluster: dask.py).
STARTERS = ("dask_cluster", "parsl_pools", "ray_cluster", "spark_cluster")


def main(argv: list[str]) -> int:
    name = Path(argv[0]).name
    if name not in STARTERS:
        sys.stderr.write(f"{name}: usage: run as one of {', '.join(STARTERS)} (the build's libexec/taskbench)\n")
        return 2
    return importlib.import_module(f"taskbench.clusters.{name.removesuffix('_cluster')}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
