// cuda: every task a kernel launch (one warp) on its column's stream, the dependencies events
// between streams (column_streams.h); one host thread issues rows in order while the GPU runs.
#include <algorithm>
#include <memory>
#include <vector>

#include "column_streams.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace gpu = taskbench::gpu;

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME});
  gpu::require_device(app);
  std::vector<std::unique_ptr<ColumnStreams>> columns;
  long widest = 1;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    columns.push_back(std::make_unique<ColumnStreams>(g));
    widest = std::max(widest, g.max_width());
  }
  app.set_parallelism(1, widest);  // docs/gpu.md: a GPU system's cores are its task slots
  app.display();
  gpu::synchronize();

  const long steps = taskbench::max_timesteps(app.graphs());
  const double start = taskbench::wall_time();
  for (long t = 0; t < steps; ++t)
    for (auto& c : columns) {
      const taskbench::TaskGraph& g = c->launcher().graph();
      if (t >= g.timesteps()) continue;
      gpu::before_rows(g.index(), t, t + 1);
      c->issue_row(t);
    }
  gpu::synchronize();
  const double elapsed = taskbench::wall_time() - start;
  for (auto& c : columns) gpu::check_last_row(c->launcher().graph(), c->buffers());

  std::vector<const gpu::TaskLauncher*> launchers;
  for (auto& c : columns) launchers.push_back(&c->launcher());
  gpu::report(app, elapsed, launchers);
  return 0;
}
