// native / native_fifo: persistent block graphs over tbrt, replayed.
//
// Each task graph is cut into blocks of timesteps (block_graph.h); a round submits the next
// block of every graph at once (so -and graphs overlap and fill each other's idle time) and
// waits: the barrier that lets a block graph be replayed. Building block graphs happens
// inside the timed region and is reported as discovery time.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "block_graph.h"
#include "common.h"

#ifndef NATIVE_QUEUE
#define NATIVE_QUEUE kLifo
#endif

int main(int argc, char** argv) {
  taskbench::AppOptions options = native::app_options(TASKBENCH_SYSTEM_NAME);
  options.flags.push_back(
      {"-block", "N", "timesteps per persistent block graph (default: chosen per graph)", 1});
  taskbench::App app(argc, argv, options);
  tbrt::Runtime rt(native::runtime_options(app, tbrt::QueueMode::NATIVE_QUEUE));
  app.set_parallelism(1, rt.num_workers());
  app.display();

  std::vector<std::unique_ptr<native::GraphRun>> runs;
  std::vector<native::BlockSchedule> schedules;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    runs.push_back(std::make_unique<native::GraphRun>(g));
    schedules.emplace_back(*runs.back(), app.flag("-block", native::choose_block_rows(g)));
  }

  rt.reset_stats();
  double discovery_s = 0;  // choosing and building block graphs (two clock reads per block)
  const double start = taskbench::wall_time();
  for (bool more = true; more;) {
    more = false;
    for (native::BlockSchedule& s : schedules) {
      if (s.done()) continue;
      const double t0 = taskbench::wall_time();
      tbrt::Graph& g = s.next();
      discovery_s += taskbench::wall_time() - t0;
      rt.submit(g);
      more = true;
    }
    if (more) rt.wait();
  }
  const double elapsed = taskbench::wall_time() - start;

  std::string blocks, lines;
  for (const native::BlockSchedule& s : schedules)
    blocks += (blocks.empty() ? "" : ",") + std::string("{\"rows\":") + std::to_string(s.block_rows()) +
              ",\"replays\":" + std::to_string(s.replays()) + ",\"builds\":" + std::to_string(s.builds()) +
              "}";
  char build[64];
  std::snprintf(build, sizeof build, "%.9g", discovery_s);
  app.add_report_json("schedule", "{\"mode\":\"persistent\",\"discovery_seconds\":" +
                                      std::string(build) + ",\"graphs\":[" + blocks + "]}");
  if (app.flag("-breakdown", 0)) lines = native::add_breakdown(app, rt.stats(), discovery_s);
  app.report(elapsed);
  std::fputs(lines.c_str(), stdout);
  return 0;
}
