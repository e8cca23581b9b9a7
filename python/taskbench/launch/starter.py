"""The cluster launchers' starter: build/libexec/taskbench/dask_cluster, parsl_pools, ray_cluster
and spark_cluster each run this script (cmake/TaskbenchPython.cmake), which runs main() of the
launcher module of its name (dask_cluster.py, ...) with the starter's arguments."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

STARTERS = ("dask_cluster", "parsl_pools", "ray_cluster", "spark_cluster")


def main(argv: list[str]) -> int:
    name = Path(argv[0]).name
    if name not in STARTERS:
        sys.stderr.write(f"{name}: usage: run as one of {', '.join(STARTERS)} (the build's libexec/taskbench)\n")
        return 2
    return importlib.import_module(f"taskbench.launch.{name}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
