// openmp_task: one OpenMP task per point per timestep, dependencies as depend clauses on the
// producers' output buffers (any number of them, through an iterator). By default the Task
// Bench paper's algorithm (all_at_once.h: every task created up front by the master thread,
// one barrier at the end); -window runs this work's creation windows instead (windows.h).
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "all_at_once.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"
#include "windows.h"

namespace {

// One line and status 2 when the buffers cannot fit in this machine's memory (-field N makes
// N buffers per point), instead of a failed allocation later.
bool buffers_fit(const std::vector<taskbench::TaskGraph>& graphs, const std::vector<int>& fields) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const long double memory = pages > 0 && page > 0 ? static_cast<long double>(pages) * page : 1e30L;
  long double bytes = 0;
  int most = 0;
  for (size_t k = 0; k < graphs.size(); ++k) {
    bytes += static_cast<long double>(fields[k]) * graphs[k].max_width() *
             taskbench::PointBuffers::stride(graphs[k].output_bytes());
    most = std::max(most, fields[k]);
  }
  if (bytes <= memory) return true;
  std::fprintf(stderr, "taskbench: -field: %d output buffers per point need %.3Lg GiB; this "
               "machine has %.3Lg GiB\n", most, bytes / (1L << 30), memory / (1L << 30));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::AppOptions options{
      TASKBENCH_SYSTEM_NAME,
      {{"-worker", "N", "OpenMP threads (default: OMP_NUM_THREADS or cores)", 1,
        taskbench::kMaxWorkerThreads},
       {"-window", "", "this work's creation windows (64 tasks per thread, each closed by a barrier; "
        "-field not used) instead of the paper's all tasks up front", 0},
       {"-priority", "", "with -window: earlier rows of a window first, through priority clauses "
        "(needs OMP_MAX_TASK_PRIORITY > 0)", 0}}};
  taskbench::App app(argc, argv, options);
  if (long workers = app.flag("-worker", 0)) omp_set_num_threads(static_cast<int>(workers));
  const bool windows = app.flag("-window", 0);
  const bool priority = app.flag("-priority", 0);
  if (priority && !windows) {
    std::fputs("taskbench: -priority needs -window (it orders the tasks of a creation window; "
               "the paper's algorithm has none)\n", stderr);
    return 2;
  }
  const int max_priority = priority ? omp_get_max_task_priority() : 0;
  if (priority && max_priority == 0) {
    std::fputs("taskbench: -priority needs OMP_MAX_TASK_PRIORITY > 0 (without it the runtime "
               "ignores priority clauses)\n", stderr);
    return 2;
  }
  std::vector<int> fields;
  long tasks = 0;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    fields.push_back(windows ? openmp_task::window_fields(g) : openmp_task::paper_fields(g));
    for (long t = 0; t < g.timesteps(); ++t) tasks += g.width(t);
  }
  if (!buffers_fit(app.graphs(), fields)) return 2;
  app.set_parallelism(1, omp_get_max_threads());
  app.display();

  std::vector<taskbench::PointBuffers> buffers;
  for (size_t k = 0; k < fields.size(); ++k) buffers.emplace_back(app.graphs()[k], fields[k]);
  double discovery = 0;  // the creating thread's time inside task creation
  const double elapsed =
      windows ? openmp_task::run_windows(buffers, taskbench::max_timesteps(app.graphs()), tasks,
                                         max_priority, discovery)
              : openmp_task::run_all_at_once(buffers, discovery);

  char json[96];
  std::snprintf(json, sizeof json, "{\"seconds\":%.9g,\"tasks\":%ld}", discovery, tasks);
  app.add_report_json("discovery", json);
  std::string creation = std::string("{\"design\":\"") + (windows ? "windows" : "all_at_once") +
                         "\",\"fields\":[";
  for (size_t k = 0; k < fields.size(); ++k)
    creation += (k ? "," : "") + std::to_string(fields[k]);
  app.add_report_json("creation", creation + "]}");
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
