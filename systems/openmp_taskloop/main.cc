// openmp_taskloop: per timestep, one taskloop per graph over the row's points (one task per
// point, grainsize 1), all created by one thread; a taskgroup around the row closes the
// timestep. taskloop has no depend clause before OpenMP 6.0, so the only ordering is that
// taskgroup: row t+1 starts once every task of row t has ended (bulk-synchronous, as openmp_for,
// but shared out by the tasking runtime instead of a static schedule).
#include <omp.h>

#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::AppOptions options{TASKBENCH_SYSTEM_NAME, {{"-worker", "N", "OpenMP threads (default: OMP_NUM_THREADS or cores)", 1, taskbench::kMaxWorkerThreads}}};
  taskbench::App app(argc, argv, options);
  if (long workers = app.flag("-worker", 0)) omp_set_num_threads(static_cast<int>(workers));
  app.set_parallelism(1, omp_get_max_threads());
  app.display();

  std::vector<taskbench::PointBuffers> buffers;
  for (const taskbench::TaskGraph& g : app.graphs()) buffers.emplace_back(g);
  const long steps = taskbench::max_timesteps(app.graphs());

  const double start = taskbench::wall_time();
#pragma omp parallel
#pragma omp single
  for (long t = 0; t < steps; ++t) {
#pragma omp taskgroup
    for (const taskbench::PointBuffers& b : buffers) {
      const taskbench::TaskGraph& g = b.graph();
      if (t >= g.timesteps()) continue;
      const long first = g.offset(t), end = first + g.width(t);
      const taskbench::PointBuffers* row = &b;
      // nogroup: the graphs of one row overlap; the taskgroup above waits for all of them.
#pragma omp taskloop grainsize(1) nogroup firstprivate(row, t)
      for (long i = first; i < end; ++i) row->run(t, i);
    }
  }
  const double elapsed = taskbench::wall_time() - start;
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
