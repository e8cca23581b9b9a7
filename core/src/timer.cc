#include <chrono>

#include "taskbench/taskbench.h"

extern "C" double taskbench_wall_time(void) {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
