// The Task Bench paper's algorithm (the original's openmp/main.cc, "OpenMP task"): inside one
// parallel region the master thread creates every task of the run before anything else, graph
// after graph and row after row, one task per point; the team then meets at one barrier, where
// the tasks run out. Each column has F output buffers (-field, the graph's fields), row t
// writing buffer t mod F: a task reads its producers' buffers (t-1) mod F (`in`) and updates its
// own (`inout`), so it also waits for the tasks that read that buffer F-1 rows before, and for
// its writer F rows before (write-after-read and write-after-write edges).
#pragma once

#include <algorithm>
#include <vector>

#include "task_body.h"
#include "taskbench/point_buffers.h"

namespace openmp_task {

// Buffers per column: the graph's fields, at most one per row (more would never be written).
// One is not enough: a task would overwrite the input that the next tasks of its row still
// read, so -field 1 runs with 2 (the report's system_report.creation says so).
inline int paper_fields(const taskbench::TaskGraph& g) {
  return static_cast<int>(std::max(2L, std::min<long>(g.raw().nb_fields, g.timesteps())));
}

inline void create_task(const taskbench::PointBuffers& b, long t, long i,
                        taskbench::Interval* deps, char** producers) {
  const taskbench::TaskGraph& g = b.graph();
  long n = 0;
  const long intervals = g.task_dependencies(t, i, deps);
  for (long d = 0; d < intervals; ++d)
    for (long j = deps[d].start; j <= deps[d].end; ++j) producers[n++] = b.output(t - 1, j);
  // [[maybe_unused]]: GCC 12 does not count uses inside depend(iterator(...)) clauses.
  [[maybe_unused]] char* own = b.output(t, i);
  // Tasks of one column share its scratch buffer, so they are ordered on it too.
  [[maybe_unused]] char* scratch[1] = {b.scratch(i)};
  const int n_scratch = g.scratch_bytes() > 0 ? 1 : 0;
  [[maybe_unused]] char** in = producers;
  const taskbench::PointBuffers* buffers = &b;
  // untied mergeable: the original's clauses.
#pragma omp task firstprivate(buffers, t, i) untied mergeable              \
    depend(iterator(k = 0 : n), in : in[k][0]) depend(inout : own[0]) \
    depend(iterator(s = 0 : n_scratch), inout : scratch[s][0])
  run_task(buffers, t, i);
}

// Runs every task; returns the elapsed seconds (team creation included, as the original times
// it) and sets `discovery` to the master's time inside task creation.
inline double run_all_at_once(const std::vector<taskbench::PointBuffers>& buffers,
                              double& discovery) {
  long max_intervals = 1, max_deps = 1;
  for (const taskbench::PointBuffers& b : buffers) {
    max_intervals = std::max(max_intervals, b.graph().max_intervals());
    max_deps = std::max(max_deps, b.graph().max_dependencies());
  }
  std::vector<taskbench::Interval> deps(max_intervals);
  std::vector<char*> producers(max_deps);

  const double start = taskbench::wall_time();
#pragma omp parallel
  {
#pragma omp master
    discovery = time_creation([&] {
      for (const taskbench::PointBuffers& b : buffers) {
        const taskbench::TaskGraph& g = b.graph();
        for (long t = 0; t < g.timesteps(); ++t)
          for (long i = g.offset(t), end = i + g.width(t); i < end; ++i)
            create_task(b, t, i, deps.data(), producers.data());
      }
    });
#pragma omp barrier
  }
  return taskbench::wall_time() - start;
}

}  // namespace openmp_task
