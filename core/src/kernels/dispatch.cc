// Kernel dispatch and the exact per-task FLOP and byte counts of docs/spec.md §2.
#include <cmath>

#include "../hash.h"
#include "kernels.h"
#include "taskbench/task_graph.h"

namespace taskbench::kernels {
namespace {

// Per-thread volatile sinks: results must be observable or the compiler may drop the work,
// and sharing one sink between threads would bounce its cache line on every task.
thread_local volatile double double_sink;
thread_local volatile uint64_t integer_sink;

double seed_for(long t, long i) { return -0.5 + 1e-6 * static_cast<double>((t + i) & 1023); }

}  // namespace

long load_imbalance_iterations(const task_graph_t& g, long t, long i) {
  const double u = imbalance_value(g, t, i);  // docs/spec.md §2
  return std::lround((1.0 + (u - 0.5) * g.kernel.imbalance) * g.kernel.iterations);
}

void run(const task_graph_t& g, long t, long i, char* scratch, size_t scratch_bytes) {
  const kernel_t& k = g.kernel;
  switch (k.type) {
    case EMPTY: return;
    case BUSY_WAIT: integer_sink = busy_wait(k.iterations, t * 31 + i); return;
    case COMPUTE_BOUND: double_sink = compute_bound(k.iterations, seed_for(t, i)); return;
    case COMPUTE_BOUND2: double_sink = compute_bound2(k.iterations, seed_for(t, i)); return;
    case LOAD_IMBALANCE:
      double_sink = compute_bound(load_imbalance_iterations(g, t, i), seed_for(t, i));
      return;
    case MEMORY_BOUND: memory_bound(scratch, scratch_bytes, k.iterations, k.samples, t); return;
    case MEMORY_DAXPY: memory_daxpy(scratch, scratch_bytes, k.iterations, k.samples, t); return;
    case COMPUTE_DGEMM: compute_dgemm(scratch, scratch_bytes, k.iterations); return;
    case IO_BOUND: io_bound(k.iterations, g.graph_index, i); return;
  }
}

}  // namespace taskbench::kernels

using namespace taskbench;

extern "C" long long task_graph_flops_per_task(task_graph_t g, long t, long i) {
  const long long its = g.kernel.iterations;
  switch (g.kernel.type) {
    case COMPUTE_BOUND: return 128 * its + 64;
    case COMPUTE_BOUND2: return 64 * its;
    case LOAD_IMBALANCE: return 128LL * kernels::load_imbalance_iterations(g, t, i) + 64;
    case COMPUTE_DGEMM: {
      long long n = kernels::dgemm_size(g.scratch_bytes_per_task);
      return 2 * n * n * n * its;
    }
    default: return 0;
  }
}

extern "C" long long task_graph_bytes_per_task(task_graph_t g, long, long) {
  const long long its = g.kernel.iterations;
  switch (g.kernel.type) {
    case MEMORY_BOUND:
    case MEMORY_DAXPY:
      return static_cast<long long>(g.scratch_bytes_per_task) * its / g.kernel.samples;
    case IO_BOUND: return 2 * kernels::kIoBlockBytes * its;
    default: return 0;
  }
}

const char* taskbench::kernel_name(kernel_type_t k) {
  switch (k) {
    case EMPTY: return "empty";
    case BUSY_WAIT: return "busy_wait";
    case MEMORY_BOUND: return "memory_bound";
    case COMPUTE_DGEMM: return "compute_dgemm";
    case MEMORY_DAXPY: return "memory_daxpy";
    case COMPUTE_BOUND: return "compute_bound";
    case COMPUTE_BOUND2: return "compute_bound2";
    case IO_BOUND: return "io_bound";
    case LOAD_IMBALANCE: return "load_imbalance";
  }
  return "?";
}
