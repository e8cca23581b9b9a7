// openmp_task: one task per point per timestep, created by one thread; dependencies are depend
// clauses on the producers' output buffers, any number of them through an iterator. Graphs are
// interleaved per timestep so tasks of different graphs overlap.
//
// Tasks are created in windows of at most 64 per thread, each window closed by the barrier of
// its `single`. libgomp stops deferring tasks once a team holds more than 64 per thread: the
// creator then runs each new task itself, after waiting for its inputs, which lie a window of
// rows ahead of the work. Measured interleaved (stencil_1d, 1000 x 2, 2 threads, best of 5),
// against openmp_for's time: created all at once 1.53x at 45 us tasks and 2.7x at 3 us; in
// windows 1.02x and 1.6x. LLVM's libomp gains too (1.11x to 1.05x, 1.83x to 1.52x), so both
// builds use the same windows.
#include <omp.h>

#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

// The creation limit of libgomp (more tasks per thread run undeferred).
constexpr long kTasksPerThreadInFlight = 64;

void spawn(const taskbench::PointBuffers& b, long t, long i, std::vector<taskbench::Interval>& deps,
           std::vector<char*>& producers) {
  const taskbench::TaskGraph& g = b.graph();
  long n = 0;
  const long intervals = g.task_dependencies(t, i, deps.data());
  for (long d = 0; d < intervals; ++d)
    for (long j = deps[d].start; j <= deps[d].end; ++j) producers[n++] = b.output(t - 1, j);
  // [[maybe_unused]]: GCC 12 does not count uses inside depend(iterator(...)) clauses.
  [[maybe_unused]] char* out = b.output(t, i);
  // Tasks of one column share its scratch buffer, so they are ordered on it too.
  [[maybe_unused]] char* scratch[1] = {b.scratch(i)};
  const int n_scratch = g.scratch_bytes() > 0 ? 1 : 0;
  [[maybe_unused]] char** in = producers.data();
  const taskbench::PointBuffers* buffers = &b;
#pragma omp task firstprivate(buffers, t, i) depend(iterator(k = 0 : n), in : in[k][0]) \
    depend(out : out[0]) depend(iterator(s = 0 : n_scratch), inout : scratch[s][0])
  buffers->run(t, i);
}

// The next task to create: point offset(t) + k of graph `graph`'s row t.
struct Cursor {
  long t = 0;
  size_t graph = 0;
  long k = 0;
};

// Creates up to `budget` tasks from the cursor on, row by row, graphs interleaved per row.
void spawn_window(const std::vector<taskbench::PointBuffers>& buffers, long steps, Cursor& c,
                  long budget, std::vector<taskbench::Interval>& deps, std::vector<char*>& producers) {
  for (; c.t < steps; ++c.t, c.graph = 0) {
    for (; c.graph < buffers.size(); ++c.graph, c.k = 0) {
      const taskbench::TaskGraph& g = buffers[c.graph].graph();
      if (c.t >= g.timesteps()) continue;
      for (; c.k < g.width(c.t); ++c.k) {
        if (budget-- == 0) return;
        spawn(buffers[c.graph], c.t, g.offset(c.t) + c.k, deps, producers);
      }
    }
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

  const long window = kTasksPerThreadInFlight * omp_get_max_threads();
  // Every thread runs the same number of singles, known up front: a flag set inside one
  // single could already be changed by the next before a slow thread reads it.
  long tasks = 0;
  for (const taskbench::TaskGraph& g : app.graphs())
    for (long t = 0; t < g.timesteps(); ++t) tasks += g.width(t);
  const long windows = (tasks + window - 1) / window;
  Cursor cursor;  // shared: advanced by whichever thread runs a window's single

  const double start = taskbench::wall_time();
#pragma omp parallel
  {
    std::vector<taskbench::Interval> deps(max_intervals);
    std::vector<char*> producers(max_deps);
    for (long w = 0; w < windows; ++w) {
      // The single's barrier closes the window: every task of it has run.
#pragma omp single
      spawn_window(buffers, steps, cursor, window, deps, producers);
    }
  }
  app.report(taskbench::wall_time() - start);
  return 0;
}
