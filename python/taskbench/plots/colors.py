"""One colour per system, the same in every figure and every campaign.

The colour depends on the system's name only (never on its position in a campaign), so that
`native` is the same blue whether a figure shows two systems or ten. Names the project ships get
fixed, well-separated colours; any other name gets one from the palette by a hash of the name.
"""

from __future__ import annotations

import zlib

# Tableau 10 and its lighter half: distinguishable on screen and in print.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
           "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")

# The default systems, and their close relatives, apart from each other.
_FIXED = {
    "serial": 7, "native": 0, "native_dynamic": 10, "native_fifo": 18,
    "openmp_for": 1, "openmp_for_llvm": 11, "openmp_task": 2, "openmp_task_llvm": 12,
    "openmp_taskloop": 8, "openmp_taskloop_llvm": 17,
    "mpi_p2p": 3, "mpi_p2p_mpich": 13, "mpi_bulk": 4, "mpi_bulk_mpich": 14,
    "mpi_openmp": 5, "mpi_openmp_mpich": 15,
    "python_serial": 6, "python_futures": 16, "python_futures_processes": 5,
    "dask": 9, "dask_distributed": 18, "ray": 13,
    # The task runtimes compared with openmp_for, openmp_task and native (docs/task-runtimes.md)
    "tbb_tasks": 4, "tbb_flow": 5, "tbb_flow_persistent": 15, "rust_rayon": 6,
    "rust_rayon_dataflow": 16, "starpu": 3, "starpu_eager": 13, "starpu_mpi": 14,
    # The paper's engines compared with serial, native and dask (docs/python-engines.md)
    "charm4py": 4, "tensorflow": 5, "spark": 3, "spark_standalone": 13,
}


def color_for(system_name: str) -> str:
    """The system's colour as '#rrggbb'."""
    index = _FIXED.get(system_name)
    if index is None:
        index = zlib.crc32(system_name.encode()) % len(PALETTE)
    return PALETTE[index]
