#include "common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace native {

taskbench::AppOptions app_options(const char* system_name) {
  return {system_name,
          {{"-worker", "N", "worker threads, the calling thread included (default: cores)", 1,
            taskbench::kMaxWorkerThreads},
           {"-breakdown", "", "report work, overhead, idle and discovery time per thread", 0}},
          /*width_defaults_to_cores=*/true};
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

namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char s[256];
  std::snprintf(s, sizeof s, format, a, b, c, d);
  return s;
}

}  // namespace

std::string add_breakdown(taskbench::App& app, const tbrt::Stats& stats, double owner_discovery) {
  // The owner's own discovery work (building graphs, enumerating predecessors) happens
  // between runtime calls, which the runtime books as worker 0's idle time: move it.
  std::vector<tbrt::ThreadStats> threads = stats.threads;
  if (!threads.empty()) {
    threads[0].discovery += owner_discovery;
    threads[0].idle = std::max(0.0, threads[0].idle - owner_discovery);
  }
  double work = 0, overhead = 0, idle = 0, discovery = 0;
  long long tasks = 0;
  std::string per_thread;
  for (size_t k = 0; k < threads.size(); ++k) {
    const tbrt::ThreadStats& t = threads[k];
    work += t.work;
    overhead += t.overhead;
    idle += t.idle;
    discovery += t.discovery;
    tasks += static_cast<long long>(t.tasks);
    per_thread += (k ? "," : "") +
                  fmt("{\"work\":%.9g,\"overhead\":%.9g,\"idle\":%.9g,\"discovery\":%.9g,", t.work,
                      t.overhead, t.idle, t.discovery) +
                  "\"tasks\":" + std::to_string(t.tasks) + ",\"steals\":" + std::to_string(t.steals) +
                  "}";
  }
  const double n = tasks > 0 ? double(tasks) : 1.0;
  app.add_report_json(
      "breakdown",
      "{\"seconds\":" +
          fmt("{\"elapsed\":%.9g,\"work\":%.9g,\"overhead\":%.9g,\"idle\":%.9g,", stats.elapsed, work,
              overhead, idle) +
          fmt("\"discovery\":%.9g},", discovery) +
          fmt("\"ns_per_task\":{\"work\":%.6g,\"overhead\":%.6g,\"idle\":%.6g,\"discovery\":%.6g},",
              1e9 * work / n, 1e9 * overhead / n, 1e9 * idle / n, 1e9 * discovery / n) +
          "\"tasks\":" + std::to_string(tasks) + ",\"threads\":[" + per_thread + "]}");
  return fmt("Breakdown (seconds over %.0f threads) work %.6f overhead %.6f", double(threads.size()),
             work, overhead) +
         fmt(" idle %.6f discovery %.6f\n", idle, discovery) +
         fmt("Breakdown (ns per task) work %.1f overhead %.1f idle %.1f discovery %.1f\n",
             1e9 * work / n, 1e9 * overhead / n, 1e9 * idle / n, 1e9 * discovery / n);
}

}  // namespace native
