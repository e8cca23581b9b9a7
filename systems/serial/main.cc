// serial: one thread, rows in order, graphs interleaved per timestep. The reference every
// other system is compared against, and the no-runtime floor of per-task overhead.
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME});
  app.display();
  std::vector<taskbench::PointBuffers> buffers;
  for (const taskbench::TaskGraph& g : app.graphs()) buffers.emplace_back(g);
  const long steps = taskbench::max_timesteps(app.graphs());

  const double start = taskbench::wall_time();
  for (long t = 0; t < steps; ++t)
    for (const taskbench::PointBuffers& b : buffers) {
      const taskbench::TaskGraph& g = b.graph();
      if (t >= g.timesteps()) continue;
      for (long i = g.offset(t), end = i + g.width(t); i < end; ++i) b.run(t, i);
    }
  const double elapsed = taskbench::wall_time() - start;
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
