#include "common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "taskbench/breakdown.h"

namespace native {

taskbench::AppOptions app_options(const char* system_name) {
  return {system_name,
          {{"-worker", "N", "worker threads, the calling thread included (default: cores)", 1,
            taskbench::kMaxWorkerThreads},
           {"-breakdown", "", "report work, overhead, idle and discovery time per thread", 0}}};
}

tbrt::Options runtime_options(const taskbench::App& app, tbrt::QueueMode queue) {
  // Far more threads than any machine has cores would only fail later, in thread creation.
  constexpr long kMaxWorkers = 4096;
  const long workers = app.flag("-worker", taskbench::available_cores());
  if (workers > kMaxWorkers) {
    std::fprintf(stderr, "taskbench: -worker: invalid value '%ld'; expected an integer from 1 to %ld\n",
                 workers, kMaxWorkers);
    std::exit(2);
  }
  tbrt::Options opt;
  opt.num_workers = static_cast<int>(workers);
  opt.queue = queue;
  opt.measure = app.flag("-breakdown", 0) != 0;
  return opt;
}

void wake_workers(tbrt::Runtime& rt) {
  tbrt::Graph g;
  for (int w = 0; w < rt.num_workers(); ++w)
    g.add([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 0, 0, /*home=*/w);
  rt.run(g);
}

std::string add_breakdown(taskbench::App& app, const tbrt::Stats& stats, double owner_discovery) {
  std::vector<taskbench::ThreadBreakdown> threads;
  for (const tbrt::ThreadStats& t : stats.threads)
    threads.push_back({t.work, t.overhead, t.idle, t.discovery, t.tasks, t.steals});
  // The owner's own discovery work (building graphs, enumerating predecessors) happens
  // between runtime calls, which the runtime books as worker 0's idle time: move it.
  if (!threads.empty()) {
    threads[0].discovery += owner_discovery;
    threads[0].idle = std::max(0.0, threads[0].idle - owner_discovery);
  }
  const taskbench::BreakdownText text = taskbench::format_breakdown(stats.elapsed, threads);
  app.add_report_json("breakdown", text.json);
  return text.lines;
}

}  // namespace native
