"""What each kernel's efficiency is measured in, and where a sweep of it starts.

Efficiency needs counted work: FLOPs for compute kernels, bytes for memory kernels (docs/spec.md §2).
Kernels that count nothing (empty, busy_wait) have no efficiency and hence no METG.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskbench.errors import EXIT_USAGE, UserError, did_you_mean


@dataclass(frozen=True)
class KernelInfo:
    metric: str  # "flops" or "bytes": which throughput column is the efficiency's numerator
    # A -iter where low-overhead systems are efficient (~75 µs tasks for compute_bound on an
    # AVX-512 core at ~110 GFLOP/s); systems not efficient there make the sweep go up first.
    start_iter: int
    scratch: int = 0  # default -scratch for kernels that need memory
    peak_kernel: str | None = None  # measure the peak on this kernel instead (load_imbalance)


KERNELS = {
    "compute_bound": KernelInfo("flops", 1 << 16),
    "compute_bound2": KernelInfo("flops", 1 << 17),
    "load_imbalance": KernelInfo("flops", 1 << 16, peak_kernel="compute_bound"),
    "compute_dgemm": KernelInfo("flops", 1 << 6, scratch=3 * 64 * 64 * 8),
    "memory_bound": KernelInfo("bytes", 1 << 10, scratch=1 << 20),
    "memory_daxpy": KernelInfo("bytes", 1 << 10, scratch=1 << 20),
    "io_bound": KernelInfo("bytes", 1 << 8),
}
UNCOUNTED = ("empty", "busy_wait")


def kernel_info(kernel: str) -> KernelInfo:
    if kernel in KERNELS:
        return KERNELS[kernel]
    if kernel in UNCOUNTED:
        raise UserError(f"kernel '{kernel}' does no counted work, so it has no efficiency: METG "
                        f"needs one of {', '.join(KERNELS)}", EXIT_USAGE)
    raise UserError(f"unknown kernel '{kernel}'{did_you_mean(kernel, KERNELS)} (one whose work is counted: "
                    f"{', '.join(KERNELS)})", EXIT_USAGE)


def peak_kernel(kernel: str) -> str:
    return kernel_info(kernel).peak_kernel or kernel


def throughput(run: dict, kernel: str) -> float | None:
    """The run's FLOP/s or B/s, whichever its kernel's efficiency is measured in."""
    column = "flops_per_second" if kernel_info(kernel).metric == "flops" else "bytes_per_second"
    value = run.get(column)
    return float(value) if value is not None else None


def unit(kernel: str) -> str:
    return "FLOP/s" if kernel_info(kernel).metric == "flops" else "B/s"
