// What the three native systems share: their flags, the runtime they build from them, the
// task body, and the -breakdown report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"
#include "tbrt/runtime.h"

namespace native {

// The flags every native system declares: -worker N and -breakdown.
taskbench::AppOptions app_options(const char* system_name);

// Workers from -worker (default: the cores this process may use); -breakdown turns on the
// runtime's per-thread accounting (clock reads at every task boundary, so only when asked).
tbrt::Options runtime_options(const taskbench::App& app, tbrt::QueueMode queue);

// One graph's buffers plus the first timestep of the block being run: task bodies get the
// row inside the block, so a persistent block graph can be replayed at any base (the
// dynamic system keeps base 0 and passes timesteps).
struct GraphRun {
  explicit GraphRun(const taskbench::TaskGraph& g)
      : buffers(g), sizes(std::max(1L, g.max_dependencies()), g.output_bytes()) {}
  taskbench::PointBuffers buffers;
  std::vector<std::size_t> sizes;  // every input's size, for execute_point
  long base = 0;  // written by the owner thread only between runs (ordered by submit)
};

// tbrt body of native_dynamic: arg is the GraphRun, (t, i) the task. It gathers its inputs
// itself, as openmp_task's tasks do (the persistent systems gather them once per block).
inline void run_task(void* arg, std::int64_t row, std::int64_t i) {
  GraphRun* g = static_cast<GraphRun*>(arg);
  g->buffers.run(g->base + row, i);
}

// Runs one empty task on every worker, right before the clock starts, so that no worker is
// parked in the kernel then: the clock starts with every thread running, as MPI ranks are
// when the barrier before the start releases them. (Waking parked workers costs a futex
// wake each, 20-40 us here, 3% of a 1000-step run at the METG.)
void wake_workers(tbrt::Runtime& rt);

// Adds "breakdown" to the JSON report (per-thread work, overhead, idle, discovery from the
// runtime's Stats, plus the owner's own discovery seconds measured by the system) and returns
// the human-readable lines to print after the report. Call only when -breakdown was given.
std::string add_breakdown(taskbench::App& app, const tbrt::Stats& stats, double owner_discovery);

// Converts a count of remaining timesteps into a tbrt priority (earlier rows run first).
inline int priority_of(long remaining) {
  return remaining > (1L << 30) ? (1 << 30) : static_cast<int>(remaining);
}

}  // namespace native
