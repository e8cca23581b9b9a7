// Core overhead per task: ns per dependencies + reverse_dependencies query, and per validated
// execute_point with the empty kernel, for several patterns; and the end-of-run check of a run's
// last row (check_unread_output, after the timed region), per run. Best of N; prints figures.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

volatile long sink;

task_graph_t make(dependence_type_t p, long width, long radix) {
  task_graph_t g{};
  g.timesteps = 1000;
  g.max_width = width;
  g.dependence = p;
  g.radix = radix;
  g.period = 3;
  g.fraction_connected = 0.5;
  g.kernel = kernel_t{EMPTY, 0, 16, 0};
  g.output_bytes_per_task = 16;
  return g;
}

double ns_per_query(const taskbench::TaskGraph& g, int reps) {
  std::vector<taskbench::Interval> iv(g.max_intervals());
  const long w = g.max_width(), steps = g.timesteps() - 1;
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    long acc = 0;
    const double start = taskbench::wall_time();
    for (long t = 1; t < steps; ++t)
      for (long i = 0; i < w; ++i) {
        acc += g.task_dependencies(t, i, iv.data());
        acc += g.task_successors(t, i, iv.data());
      }
    sink = acc;
    // Two queries per task: report ns per query.
    best = std::min(best, (taskbench::wall_time() - start) / (2.0 * (steps - 1) * w) * 1e9);
  }
  return best;
}

double ns_per_execute(const taskbench::TaskGraph& g, int reps) {
  taskbench::PointBuffers buffers(g);
  const long w = g.max_width(), steps = g.timesteps();
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    const double start = taskbench::wall_time();
    for (long t = 0; t < steps; ++t)
      for (long i = 0; i < w; ++i) buffers.run(t, i);
    best = std::min(best, (taskbench::wall_time() - start) / (steps * w) * 1e9);
  }
  return best;
}

// The whole end-of-run check of one run (every output of the last row), after a run.
double ns_per_last_row_check(const taskbench::TaskGraph& g, int reps) {
  taskbench::PointBuffers buffers(g);
  const long steps = g.timesteps();
  for (long t = 0; t < steps; ++t)
    for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) buffers.run(t, i);
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    const double start = taskbench::wall_time();
    buffers.check_last_row();
    best = std::min(best, (taskbench::wall_time() - start) * 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  // An App only to switch the core's run state on (no flags are used).
  char* args[] = {argv[0]};
  taskbench::App app(1, args);
  (void)argc;
  struct Case {
    const char* name;
    task_graph_t g;
  } cases[] = {{"stencil_1d w=2", make(STENCIL_1D, 2, 3)},      {"stencil_1d w=64", make(STENCIL_1D, 64, 3)},
               {"nearest r=5 w=64", make(NEAREST, 64, 5)},      {"fft w=64", make(FFT, 64, 3)},
               {"spread r=5 w=64", make(SPREAD, 64, 5)},        {"random_nearest r=5", make(RANDOM_NEAREST, 64, 5)},
               {"random_nearest r=3", make(RANDOM_NEAREST, 64, 3)},  {"random_nearest r=9", make(RANDOM_NEAREST, 64, 9)},
               {"random_spread r=5 w=64", make(RANDOM_SPREAD, 64, 5)},
               {"all_to_all w=16", make(ALL_TO_ALL, 16, 3)}};
  std::printf("%-22s %22s %26s %28s\n", "pattern", "ns per query", "execute_point empty (ns)",
              "end-of-run check (ns/run)");
  for (const Case& c : cases) {
    taskbench::TaskGraph g(c.g);
    std::printf("%-22s %22.1f %26.1f %28.1f\n", c.name, ns_per_query(g, 5), ns_per_execute(g, 5),
                ns_per_last_row_check(g, 5));
  }
  task_graph_t large = make(STENCIL_1D, 2, 3);
  large.output_bytes_per_task = 1 << 20;
  std::printf("%-22s %22s %26s %28.1f\n", "stencil_1d w=2 1 MiB", "", "",
              ns_per_last_row_check(taskbench::TaskGraph(large), 5));
  return 0;
}
