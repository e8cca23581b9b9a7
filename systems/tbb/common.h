// What both TBB systems share: the thread count, -worker N (default: the cores this process may
// use), and the graphs' buffers.
// global_control lifts TBB's own limit (the machine's cores) so that -worker 3 on 2 cores gets
// 3 threads, and the arena of N slots (one of them the main thread's) runs the whole benchmark.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace tbb_system {

inline taskbench::SystemFlag worker_flag() {
  return {"-worker", "N", "TBB threads, the main thread included (default: cores)", 1,
          taskbench::kMaxWorkerThreads};
}

// Also tells the report how many cores the run uses.
struct Threads {
  explicit Threads(taskbench::App& app)
      : count(static_cast<int>(app.flag("-worker", taskbench::available_cores()))),
        limit(oneapi::tbb::global_control::max_allowed_parallelism, count),
        arena(count) {
    app.set_parallelism(1, count);
  }
  int count;
  oneapi::tbb::global_control limit;
  oneapi::tbb::task_arena arena;
};

inline std::vector<taskbench::PointBuffers> point_buffers(const taskbench::App& app) {
  std::vector<taskbench::PointBuffers> buffers;
  for (const taskbench::TaskGraph& g : app.graphs()) buffers.emplace_back(g);
  return buffers;
}

}  // namespace tbb_system
