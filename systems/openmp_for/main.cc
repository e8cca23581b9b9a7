// openmp_for: one parallel region; per timestep a worksharing loop over each graph's row
// (nowait between graphs, a barrier closing the timestep). schedule(static) unless OMP_SCHEDULE
// is set, then schedule(runtime): a static loop is computed inline, while a runtime one goes
// through the OpenMP runtime's dispatch on every loop.
#include <omp.h>

#include <cstdlib>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::AppOptions options{TASKBENCH_SYSTEM_NAME, {{"-worker", "N", "OpenMP threads (default: OMP_NUM_THREADS or cores)", 1, taskbench::kMaxWorkerThreads}}};
  taskbench::App app(argc, argv, options);
  if (long workers = app.flag("-worker", 0)) omp_set_num_threads(static_cast<int>(workers));
  const bool runtime_schedule = std::getenv("OMP_SCHEDULE") != nullptr;
  app.set_parallelism(1, omp_get_max_threads());
  app.display();

  std::vector<taskbench::PointBuffers> buffers;
  for (const taskbench::TaskGraph& g : app.graphs()) buffers.emplace_back(g);
  const long steps = taskbench::max_timesteps(app.graphs());

  const double start = taskbench::wall_time();
#pragma omp parallel
  for (long t = 0; t < steps; ++t) {
    for (const taskbench::PointBuffers& b : buffers) {
      const taskbench::TaskGraph& g = b.graph();
      if (t >= g.timesteps()) continue;
      const long first = g.offset(t), end = first + g.width(t);
      if (runtime_schedule) {
#pragma omp for schedule(runtime) nowait
        for (long i = first; i < end; ++i) b.run(t, i);
      } else {
#pragma omp for schedule(static) nowait
        for (long i = first; i < end; ++i) b.run(t, i);
      }
    }
#pragma omp barrier
  }
  const double elapsed = taskbench::wall_time() - start;
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
