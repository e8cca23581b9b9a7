// openmp_task: one task per point per timestep, created by one thread; dependencies are depend
// clauses on the producers' output buffers, any number of them through an iterator. Graphs are
// interleaved per timestep so tasks of different graphs overlap.
#include <omp.h>

#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

void spawn_row(const taskbench::PointBuffers& b, long t, std::vector<taskbench::Interval>& deps,
               std::vector<char*>& producers) {
  const taskbench::TaskGraph& g = b.graph();
  const bool has_scratch = g.scratch_bytes() > 0;
  for (long i = g.offset(t), end = i + g.width(t); i < end; ++i) {
    long n = 0;
    const long intervals = g.task_dependencies(t, i, deps.data());
    for (long d = 0; d < intervals; ++d)
      for (long j = deps[d].start; j <= deps[d].end; ++j) producers[n++] = b.output(t - 1, j);
    // [[maybe_unused]]: GCC 12 does not count uses inside depend(iterator(...)) clauses.
    [[maybe_unused]] char* out = b.output(t, i);
    // Tasks of one column share its scratch buffer, so they are ordered on it too.
    [[maybe_unused]] char* scratch[1] = {b.scratch(i)};
    const int n_scratch = has_scratch ? 1 : 0;
    [[maybe_unused]] char** in = producers.data();
    const taskbench::PointBuffers* buffers = &b;
#pragma omp task firstprivate(buffers, t, i) depend(iterator(k = 0 : n), in : in[k][0]) \
    depend(out : out[0]) depend(iterator(s = 0 : n_scratch), inout : scratch[s][0])
    buffers->run(t, i);
  }
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::AppOptions options{TASKBENCH_SYSTEM_NAME, {{"-worker", "N", "OpenMP threads (default: OMP_NUM_THREADS or cores)", 1, taskbench::kMaxWorkerThreads}}, true};
  taskbench::App app(argc, argv, options);
  if (long workers = app.flag("-worker", 0)) omp_set_num_threads(static_cast<int>(workers));
  app.set_parallelism(1, omp_get_max_threads());
  app.display();

  std::vector<taskbench::PointBuffers> buffers;
  long max_intervals = 1, max_deps = 1;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    buffers.emplace_back(g);
    max_intervals = std::max(max_intervals, g.max_intervals());
    max_deps = std::max(max_deps, g.max_dependencies());
  }
  const long steps = taskbench::max_timesteps(app.graphs());

  const double start = taskbench::wall_time();
#pragma omp parallel
#pragma omp single
  {
    std::vector<taskbench::Interval> deps(max_intervals);
    std::vector<char*> producers(max_deps);
    for (long t = 0; t < steps; ++t)
      for (const taskbench::PointBuffers& b : buffers)
        if (t < b.graph().timesteps()) spawn_row(b, t, deps, producers);
  }  // the implicit barrier waits for every task
  app.report(taskbench::wall_time() - start);
  return 0;
}
