"""Whether a CUDA device can be used here: what makes a registry entry with processor = "gpu"
available (docs/gpu.md).

The probe loads the NVIDIA driver, libcuda.so.1, by name through the normal loader path and asks
cuInit(0) and cuDeviceGetCount. It never loads the stand-in driver the Legion build makes
(cuda-standin/libcuda.so.1): that one reports no device by design, and a GPU system must not
run against it.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

DRIVER = "libcuda.so.1"
# The folder of the CUDA runtime stand-in's builds of the GPU systems (build/tests/gpu-standin,
# docs/gpu.md): where it is set, the GPU entries run those, with no device, for the fault matrix
# and docs/reliability.md on machines without a GPU. They measure nothing: the commands that
# store figures refuse them (Registry.require_available).
STANDIN_VARIABLE = "TASKBENCH_CUDA_STANDIN"


def standin_dir() -> Path | None:
    value = os.environ.get(STANDIN_VARIABLE)
    return Path(value) if value else None


def _error_text(lib, code: int) -> str:
    """The driver's words for a CUresult ("no CUDA-capable device is detected"), else ""."""
    text = ctypes.c_char_p()
    try:
        if lib.cuGetErrorString(ctypes.c_int(code), ctypes.byref(text)) == 0 and text.value:
            return ": " + text.value.decode(errors="replace")
    except AttributeError:  # a driver without cuGetErrorString: the number alone
        pass
    return ""


def probe(library: str = DRIVER) -> str:
    """"" when `library` (a CUDA driver) sees at least one device, else why not, in one line."""
    try:
        lib = ctypes.CDLL(library)
    except OSError as exc:
        if "No such file" in str(exc):
            return f"no usable CUDA device ({library}, the NVIDIA driver, is not installed)"
        return f"no usable CUDA device ({library} cannot be loaded: {exc})"
    try:
        code = lib.cuInit(ctypes.c_uint(0))
        if code != 0:
            return f"no usable CUDA device (cuInit returned {code}{_error_text(lib, code)})"
        count = ctypes.c_int(0)
        code = lib.cuDeviceGetCount(ctypes.byref(count))
    except AttributeError as exc:  # a library of that name without the driver's entry points
        return f"no usable CUDA device ({library} is not a CUDA driver: {exc})"
    if code != 0:
        return f"no usable CUDA device (cuDeviceGetCount returned {code}{_error_text(lib, code)})"
    if count.value < 1:
        return "no usable CUDA device (the NVIDIA driver sees none)"
    return ""


@functools.lru_cache(maxsize=None)
def cuda_device_problem() -> str:
    """probe() of the system's driver, once per process: cuInit is not free, and every GPU
    entry of the registry asks. It creates no context: the systems, started by fork and exec,
    get a GPU of their own."""
    return probe()
