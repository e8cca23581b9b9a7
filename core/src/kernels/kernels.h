// Kernels of docs/spec.md §2. Each runs one task's work; their exact FLOP and byte counts live in dispatch.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "taskbench/taskbench.h"

namespace taskbench::kernels {

double compute_bound(long iterations, double seed);   // 64 doubles, one FMA each per iteration
double compute_bound2(long iterations, double seed);  // 32 doubles
uint64_t busy_wait(long iterations, uint64_t seed);
void memory_bound(char* scratch, size_t scratch_bytes, long iterations, int samples, long t);
void memory_daxpy(char* scratch, size_t scratch_bytes, long iterations, int samples, long t);
bool dgemm_available();
// The BLAS loaded at run time, for the report, and whether it runs its own thread pool
// (which competes with the system under test for the cores: App warns).
std::string blas_runtime();
bool blas_threaded();
// Buffers OpenBLAS took from its pool through the lock in dgemm.cc (0: the lock is not in place).
long blas_pool_takes();
long dgemm_size(size_t scratch_bytes);  // N = floor(sqrt(scratch / 24))
void compute_dgemm(char* scratch, size_t scratch_bytes, long iterations);
void io_bound(long iterations, long graph, long point);
long load_imbalance_iterations(const task_graph_t& g, long t, long i);

// io_bound moves this many bytes each way per iteration.
constexpr long kIoBlockBytes = 4096;

// Runs graph g's kernel for task (t, i).
void run(const task_graph_t& g, long t, long i, char* scratch, size_t scratch_bytes);

}  // namespace taskbench::kernels
