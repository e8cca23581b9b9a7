// tbb_tasks: the dynamic baseline. Per timestep one task_group gets a task per point of every
// graph's row (graphs interleaved within the timestep) and waits for them all; the wait is the
// only synchronization, so row t-1's outputs are complete before row t reads them. Two output
// fields per column suffice for the same reason.
#include <oneapi/tbb/task_group.h>

#include <vector>

#include "common.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME, {tbb_system::worker_flag()}});
  tbb_system::Threads threads(app);
  app.display();
  const std::vector<taskbench::PointBuffers> buffers = tbb_system::point_buffers(app);
  const long steps = taskbench::max_timesteps(app.graphs());

  const double start = taskbench::wall_time();
  threads.arena.execute([&] {
    oneapi::tbb::task_group row;
    for (long t = 0; t < steps; ++t) {
      for (const taskbench::PointBuffers& b : buffers) {
        const taskbench::TaskGraph& g = b.graph();
        if (t >= g.timesteps()) continue;
        for (long i = g.offset(t), end = i + g.width(t); i < end; ++i)
          row.run([&b, t, i] { b.run(t, i); });
      }
      row.wait();
    }
  });
  const double elapsed = taskbench::wall_time() - start;
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
