// Per-thread time accounting, readable after Runtime::wait().
#pragma once

#include <cstdint>
#include <vector>

namespace tbrt {

struct ThreadStats {
  double work = 0;       // seconds inside task bodies
  double overhead = 0;   // seconds scheduling: between bodies, not idle
  double discovery = 0;  // seconds creating/wiring tasks outside bodies (spawn, create, submit)
  double idle = 0;       // the rest of the window: looking for work, asleep, and for
                         // worker 0 its own code between runtime calls
  std::uint64_t tasks = 0;   // tasks executed
  std::uint64_t steals = 0;  // tasks taken from another worker's deque
};

struct Stats {
  double elapsed = 0;  // seconds from reset_stats() (or construction) to the last wait()
  std::vector<ThreadStats> threads;

  double total_work() const {
    double s = 0;
    for (const auto& t : threads) s += t.work;
    return s;
  }
  // Useful fraction of the threads' time: work / (elapsed * threads).
  double efficiency() const {
    return elapsed > 0 && !threads.empty() ? total_work() / (elapsed * double(threads.size())) : 0;
  }
};

}  // namespace tbrt
