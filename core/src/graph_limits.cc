#include "graph_limits.h"

#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "usage_error.h"

namespace taskbench {
namespace {

using u64 = unsigned long long;
constexpr u64 kCountLimit = LLONG_MAX;  // the report counts in long long

u64 mul(u64 a, u64 b) {
  u64 r;
  return __builtin_mul_overflow(a, b, &r) ? ULLONG_MAX : r;
}

u64 add(u64 a, u64 b) {
  u64 r;
  return __builtin_add_overflow(a, b, &r) ? ULLONG_MAX : r;
}

u64 add(const GraphUsage& a, const GraphUsage& b, u64 GraphUsage::*field) {
  return add(a.*field, b.*field);
}

// The most iterations a task of g runs: load_imbalance rounds (1 + (u - 0.5) * imbalance) * iter
// with u < 1, so at most (1 + imbalance / 2) * iter, plus one for the rounding.
u64 max_task_iterations(const task_graph_t& g) {
  const u64 iter = static_cast<u64>(g.kernel.iterations);
  if (g.kernel.type != LOAD_IMBALANCE) return iter;
  const long double extra = std::ceil(static_cast<long double>(iter) * g.kernel.imbalance / 2);
  return add(add(iter, static_cast<u64>(extra)), 1);
}

// Bounds of the per-task counts of kernels/dispatch.cc (the same formulas, saturating instead of
// overflowing): an intermediate product must fit too, since dispatch.cc forms it.
u64 max_task_flops(const task_graph_t& g) {
  const u64 its = max_task_iterations(g);
  switch (g.kernel.type) {
    case COMPUTE_BOUND:
    case LOAD_IMBALANCE: return add(mul(128, its), 64);
    case COMPUTE_BOUND2: return mul(64, its);
    case COMPUTE_DGEMM: {
      const u64 n = static_cast<u64>(kernels::dgemm_size(g.scratch_bytes_per_task));
      return mul(mul(mul(mul(2, n), n), n), its);
    }
    default: return 0;
  }
}

u64 max_task_bytes(const task_graph_t& g) {
  const u64 its = max_task_iterations(g);
  switch (g.kernel.type) {
    case MEMORY_BOUND:
    case MEMORY_DAXPY: {
      const u64 product = mul(g.scratch_bytes_per_task, its);  // formed before the division
      return product > kCountLimit ? ULLONG_MAX : product / static_cast<u64>(g.kernel.samples);
    }
    case IO_BOUND: return mul(2 * kernels::kIoBlockBytes, its);
    default: return 0;
  }
}

GraphUsage usage_of(const task_graph_t& g) {
  GraphUsage u;
  u.tasks = mul(g.timesteps, g.max_width);  // dom and tree rows are narrower: an upper bound
  u.dependencies = mul(u.tasks, task_graph_max_dependencies(g));
  u.flops = mul(u.tasks, max_task_flops(g));
  u.bytes = mul(u.tasks, max_task_bytes(g));
  u.memory = graph_memory_bytes(g);
  return u;
}

// Checked one at a time, memory first: a message names one flag that fixes one limit.
enum class Limit { kMemory, kCounts };

bool fits(const task_graph_t& g, Limit limit, const GraphUsage& used, u64 memory_bytes) {
  const GraphUsage u = usage_of(g);
  if (limit == Limit::kMemory) return add(used, u, &GraphUsage::memory) <= memory_bytes;
  for (auto field : {&GraphUsage::tasks, &GraphUsage::dependencies, &GraphUsage::flops,
                     &GraphUsage::bytes})
    if (add(used, u, field) > kCountLimit) return false;
  return true;
}

// A flag that can be lowered to make a graph fit, and its smallest value.
enum class Knob { kSteps, kWidth, kIter, kOutput, kScratch };

const char* flag_of(Knob k) {
  switch (k) {
    case Knob::kSteps: return "-steps";
    case Knob::kWidth: return "-width";
    case Knob::kIter: return "-iter";
    case Knob::kOutput: return "-output";
    case Knob::kScratch: return "-scratch";
  }
  return "?";
}

long min_of(Knob k) { return k == Knob::kOutput ? 16 : k == Knob::kIter || k == Knob::kScratch ? 0 : 1; }

long get(const task_graph_t& g, Knob k) {
  switch (k) {
    case Knob::kSteps: return g.timesteps;
    case Knob::kWidth: return g.max_width;
    case Knob::kIter: return g.kernel.iterations;
    case Knob::kOutput: return static_cast<long>(g.output_bytes_per_task);
    case Knob::kScratch: return static_cast<long>(g.scratch_bytes_per_task);
  }
  return 0;
}

void set(task_graph_t& g, Knob k, long v) {
  switch (k) {
    case Knob::kSteps: g.timesteps = v; return;
    case Knob::kWidth: g.max_width = v; return;
    case Knob::kIter: g.kernel.iterations = v; return;
    case Knob::kOutput: g.output_bytes_per_task = static_cast<size_t>(v); return;
    case Knob::kScratch: g.scratch_bytes_per_task = static_cast<size_t>(v); return;
  }
}

// The flags that can fix a broken limit, the likeliest culprit first.
std::vector<Knob> knobs_for(Limit limit, const task_graph_t& g) {
  if (limit == Limit::kCounts) return {Knob::kIter, Knob::kWidth, Knob::kSteps};
  if (g.scratch_bytes_per_task > 2 * g.output_bytes_per_task)
    return {Knob::kScratch, Knob::kOutput, Knob::kWidth};
  return {Knob::kOutput, Knob::kScratch, Knob::kWidth};
}

// Every limit grows with every knob, so the values that fit are a prefix of the knob's range:
// binary search for its end. Returns min_of(knob) - 1 when even the smallest value does not fit.
long largest_fitting(task_graph_t g, Knob knob, Limit limit, const GraphUsage& used,
                     u64 memory_bytes) {
  long lo = min_of(knob) - 1, hi = get(g, knob) - 1;  // lo fits (or is min - 1); hi + 1 does not
  while (lo < hi) {
    const long mid = lo + (hi - lo + 1) / 2;
    set(g, knob, mid);
    if (fits(g, limit, used, memory_bytes)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

std::string gib(u64 bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return s;
}

}  // namespace

unsigned long long physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? mul(pages, page) : ULLONG_MAX;
}

unsigned long long graph_memory_bytes(const task_graph_t& g) {
  const u64 output = add(g.output_bytes_per_task, 127) / 128 * 128;  // PointBuffers' stride
  return mul(g.max_width, add(mul(2, output), g.scratch_bytes_per_task));
}

void check_graph_limits(const task_graph_t& g, unsigned long long memory_bytes, GraphUsage& used) {
  const bool first = g.graph_index == 0;
  for (Limit limit : {Limit::kMemory, Limit::kCounts}) {
    if (fits(g, limit, used, memory_bytes)) continue;
    const std::string why =
        limit == Limit::kCounts
            ? std::string("its counts of tasks, dependencies, FLOPs and bytes") +
                  (first ? "" : ", added to those of the graphs before it,") + " must fit in 64 bits"
            : "two rows of outputs and one scratch per point need " + gib(graph_memory_bytes(g)) +
                  (first ? "" : " on top of the " + gib(used.memory) + " of the graphs before it") +
                  "; this machine has " + gib(memory_bytes);
    const std::vector<Knob> knobs = knobs_for(limit, g);
    for (Knob knob : knobs) {
      const long current = get(g, knob);
      if (current <= min_of(knob)) continue;  // lowering it cannot help
      const long best = largest_fitting(g, knob, limit, used, memory_bytes);
      if (best < min_of(knob)) continue;
      throw UsageError(std::string(flag_of(knob)) + ": invalid value '" + std::to_string(current) +
                       "'; expected at most " + std::to_string(best) +
                       " with the other flags as given (" + why + ")");
    }
    // Only when the graphs before it leave no room at all.
    throw UsageError(std::string(flag_of(knobs.back())) + ": invalid value '" +
                     std::to_string(get(g, knobs.back())) + "'; expected a smaller graph (" + why + ")");
  }
  const GraphUsage u = usage_of(g);
  for (auto field : {&GraphUsage::tasks, &GraphUsage::dependencies, &GraphUsage::flops,
                     &GraphUsage::bytes, &GraphUsage::memory})
    used.*field = add(used, u, field);
}

}  // namespace taskbench
