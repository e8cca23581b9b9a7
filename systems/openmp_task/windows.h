// -window: this work's design, not the paper's. Tasks are created in windows of at most 64 per
// thread, each closed by the barrier of its `single`, graphs interleaved per row, and each column
// has an output buffer per row a window spans, so no task waits for the readers of the buffer it
// overwrites. libgomp stops deferring tasks once a team holds more than 64 per thread: the
// creator then runs each new task itself, after waiting for its inputs, which lie a window of
// rows ahead of the work. LLVM's libomp gains from the windows too (figures: README.md).
#pragma once

#include <omp.h>

#include <algorithm>
#include <vector>

#include "task_body.h"
#include "taskbench/point_buffers.h"

namespace openmp_task {

// The creation limit of libgomp (more tasks per thread run undeferred).
constexpr long kTasksPerThreadInFlight = 64;

inline long window_tasks() { return kTasksPerThreadInFlight * omp_get_max_threads(); }

// Output buffers per column: one more than the rows a window can span, so a task never
// overwrites a buffer that a pending task of its window still reads. Its `out` dependence then
// finds no earlier access to wait for: libgomp links each write-after-read edge with a
// malloc'd list entry, and with 2 buffers every task had 3 or more of them (figures: README.md,
// "An output buffer per row of a window"). Capped at kFieldBytes per graph: fewer fields stay
// correct, since the out dependence orders the overwrite after its readers; they only cost
// those edges.
constexpr size_t kFieldBytes = size_t(64) << 20;

inline int window_fields(const taskbench::TaskGraph& g) {
  long narrowest = g.max_width();
  for (long t = 0; t < g.timesteps(); ++t) narrowest = std::min(narrowest, g.width(t));
  const long rows = window_tasks() / std::max(1L, narrowest) + 2;
  const size_t field = taskbench::PointBuffers::stride(g.output_bytes()) * g.max_width();
  const long affordable = static_cast<long>(kFieldBytes / std::max<size_t>(field, 1));
  return static_cast<int>(std::max(2L, std::min(rows + 1, affordable)));
}

inline void spawn_in_window(const taskbench::PointBuffers& b, long t, long i, int priority,
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
  run_task(buffers, t, i);
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
inline void spawn_window(const std::vector<taskbench::PointBuffers>& buffers, long steps,
                         Cursor& c, long budget, int max_priority,
                         std::vector<taskbench::Interval>& deps, std::vector<char*>& producers) {
  const long first_row = c.t;
  for (; c.t < steps; ++c.t, c.graph = 0) {
    const int priority =
        static_cast<int>(max_priority - std::min<long>(max_priority, c.t - first_row));
    for (; c.graph < buffers.size(); ++c.graph, c.k = 0) {
      const taskbench::TaskGraph& g = buffers[c.graph].graph();
      if (c.t >= g.timesteps()) continue;
      for (; c.k < g.width(c.t); ++c.k) {
        if (budget-- == 0) return;
        spawn_in_window(buffers[c.graph], c.t, g.offset(c.t) + c.k, priority, deps, producers);
      }
    }
  }
}

// Runs every task; returns the elapsed seconds (team creation included) and sets `discovery`
// to the creating threads' time inside task creation.
inline double run_windows(const std::vector<taskbench::PointBuffers>& buffers, long steps,
                          long tasks, int max_priority, double& discovery) {
  long max_intervals = 1, max_deps = 1;
  for (const taskbench::PointBuffers& b : buffers) {
    max_intervals = std::max(max_intervals, b.graph().max_intervals());
    max_deps = std::max(max_deps, b.graph().max_dependencies());
  }
  const long window = window_tasks();
  // Every thread runs the same number of singles, known up front: a flag set inside one
  // single could already be changed by the next before a slow thread reads it.
  const long windows = (tasks + window - 1) / window;
  Cursor cursor;  // shared: advanced by whichever thread runs a window's single
  discovery = 0;

  const double start = taskbench::wall_time();
#pragma omp parallel
  {
    std::vector<taskbench::Interval> deps(max_intervals);
    std::vector<char*> producers(max_deps);
    for (long w = 0; w < windows; ++w) {
      // The single's barrier closes the window: every task of it has run.
#pragma omp single
      discovery += time_creation(
          [&] { spawn_window(buffers, steps, cursor, window, max_priority, deps, producers); });
    }
  }
  return taskbench::wall_time() - start;
}

}  // namespace openmp_task
