// openmp_task: one task per point per timestep, created by one thread; dependencies are depend
// clauses on the producers' output buffers, any number of them through an iterator. Graphs are
// interleaved per timestep so tasks of different graphs overlap.
//
// Tasks are created in windows of at most 64 per thread, each window closed by the barrier of
// its `single`. libgomp stops deferring tasks once a team holds more than 64 per thread: the
// creator then runs each new task itself, after waiting for its inputs, which lie a window of
// rows ahead of the work. LLVM's libomp gains from the windows too, so both builds use them
// (figures: README.md, "Creation windows").
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

// The creation limit of libgomp (more tasks per thread run undeferred).
constexpr long kTasksPerThreadInFlight = 64;

void spawn(const taskbench::PointBuffers& b, long t, long i, int priority,
           std::vector<taskbench::Interval>& deps, std::vector<char*>& producers) {
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
#pragma omp task firstprivate(buffers, t, i) priority(priority) \
    depend(iterator(k = 0 : n), in : in[k][0]) depend(out : out[0])       \
    depend(iterator(s = 0 : n_scratch), inout : scratch[s][0])
  buffers->run(t, i);
}

// Output buffers per column: one more than the rows a window can span, so a task never
// overwrites a buffer that a pending task of its window still reads. Its `out` dependence then
// finds no earlier access to wait for: libgomp links each write-after-read edge with a
// malloc'd list entry, and with 2 buffers every task had 3 or more of them (figures: README.md,
// "An output buffer per row of a window"). Capped at kFieldBytes per graph: fewer fields stay
// correct, since the out dependence orders the overwrite after its readers; they only cost
// those edges.
constexpr size_t kFieldBytes = size_t(64) << 20;

int output_fields(const taskbench::TaskGraph& g, long window, long narrowest_row) {
  const long rows = window / std::max(1L, narrowest_row) + 2;
  const size_t field = taskbench::PointBuffers::stride(g.output_bytes()) * g.max_width();
  const long affordable = static_cast<long>(kFieldBytes / std::max<size_t>(field, 1));
  return static_cast<int>(std::max(2L, std::min(rows + 1, affordable)));
}

// The next task to create: point offset(t) + k of graph `graph`'s row t.
struct Cursor {
  long t = 0;
  size_t graph = 0;
  long k = 0;
};

// Creates up to `budget` tasks from the cursor on, row by row, graphs interleaved per row.
// With max_priority > 0, earlier rows of the window get higher priorities (the window's first
// row max_priority, each later row one less, down to 0): a window ends in a barrier, so only the
// order within it matters.
void spawn_window(const std::vector<taskbench::PointBuffers>& buffers, long steps, Cursor& c,
                  long budget, int max_priority, std::vector<taskbench::Interval>& deps,
                  std::vector<char*>& producers) {
  const long first_row = c.t;
  for (; c.t < steps; ++c.t, c.graph = 0) {
    const int priority = static_cast<int>(max_priority - std::min<long>(max_priority, c.t - first_row));
    for (; c.graph < buffers.size(); ++c.graph, c.k = 0) {
      const taskbench::TaskGraph& g = buffers[c.graph].graph();
      if (c.t >= g.timesteps()) continue;
      for (; c.k < g.width(c.t); ++c.k) {
        if (budget-- == 0) return;
        spawn(buffers[c.graph], c.t, g.offset(c.t) + c.k, priority, deps, producers);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::AppOptions options{
      TASKBENCH_SYSTEM_NAME,
      {{"-worker", "N", "OpenMP threads (default: OMP_NUM_THREADS or cores)", 1,
        taskbench::kMaxWorkerThreads},
       {"-priority", "", "earlier rows first: priority clauses (needs OMP_MAX_TASK_PRIORITY > 0)", 0}}};
  taskbench::App app(argc, argv, options);
  if (long workers = app.flag("-worker", 0)) omp_set_num_threads(static_cast<int>(workers));
  const int max_priority = app.flag("-priority", 0) ? omp_get_max_task_priority() : 0;
  if (app.flag("-priority", 0) && max_priority == 0) {
    std::fputs("taskbench: -priority needs OMP_MAX_TASK_PRIORITY > 0 (without it the runtime "
               "ignores priority clauses)\n", stderr);
    return 2;
  }
  app.set_parallelism(1, omp_get_max_threads());
  app.display();

  const long window = kTasksPerThreadInFlight * omp_get_max_threads();
  std::vector<taskbench::PointBuffers> buffers;
  long max_intervals = 1, max_deps = 1;
  // Every thread runs the same number of singles, known up front: a flag set inside one
  // single could already be changed by the next before a slow thread reads it.
  long tasks = 0;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    long narrowest = g.max_width();
    for (long t = 0; t < g.timesteps(); ++t) {
      tasks += g.width(t);
      narrowest = std::min(narrowest, g.width(t));
    }
    buffers.emplace_back(g, output_fields(g, window, narrowest));
    max_intervals = std::max(max_intervals, g.max_intervals());
    max_deps = std::max(max_deps, g.max_dependencies());
  }
  const long steps = taskbench::max_timesteps(app.graphs());
  const long windows = (tasks + window - 1) / window;
  Cursor cursor;  // shared: advanced by whichever thread runs a window's single
  // Discovery: the creating thread's time inside task creation (two clock reads a window).
  double discovery = 0;

  const double start = taskbench::wall_time();
#pragma omp parallel
  {
    std::vector<taskbench::Interval> deps(max_intervals);
    std::vector<char*> producers(max_deps);
    for (long w = 0; w < windows; ++w) {
      // The single's barrier closes the window: every task of it has run.
#pragma omp single
      {
        const double begin = taskbench::wall_time();
        spawn_window(buffers, steps, cursor, window, max_priority, deps, producers);
        discovery += taskbench::wall_time() - begin;
      }
    }
  }
  const double elapsed = taskbench::wall_time() - start;
  char json[96];
  std::snprintf(json, sizeof json, "{\"seconds\":%.9g,\"tasks\":%ld}", discovery, tasks);
  app.add_report_json("discovery", json);
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
