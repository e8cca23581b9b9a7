// native / native_fifo: persistent block graphs over tbrt, replayed.
//
// Each task graph is cut into blocks of timesteps (block_graph.h); a round submits the next
// block of every graph at once (so -and graphs overlap and fill each other's idle time) and
// waits: the barrier that lets a block graph be replayed. Homed, the blocks that replay one
// graph to the end go in one submit instead, ordered by the graph's carried edges, with no
// barrier between them (BlockSchedule::next). Building block graphs happens inside the timed
// region and is reported as discovery time.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "block_graph.h"
#include "common.h"

#ifndef NATIVE_QUEUE
#define NATIVE_QUEUE kLifo
#endif
// native homes its tasks by column (see BlockGraph); native_fifo is the shared-queue
// baseline, so everything goes through its queue unless asked otherwise.
#ifndef NATIVE_HOME_DEFAULT
#define NATIVE_HOME_DEFAULT 1
#endif

int main(int argc, char** argv) {
  taskbench::AppOptions options = native::app_options(TASKBENCH_SYSTEM_NAME);
  options.flags.push_back(
      {"-block", "N", "timesteps per persistent block graph (default: chosen per graph)", 1});
  options.flags.push_back({"-home", "0|1",
                           "1: each worker runs its own block of columns, polling predecessors; "
                           "0: every task through the queues, stolen when idle (default: " +
                               std::to_string(NATIVE_HOME_DEFAULT) + ")",
                           0});
  taskbench::App app(argc, argv, options);
  // Before anything is printed or started: a flag error is one line on stderr and no output.
  const long home = app.flag("-home", NATIVE_HOME_DEFAULT);
  if (home > 1) {
    std::fprintf(stderr, "taskbench: -home: invalid value '%ld'; expected 0 or 1\n", home);
    return 2;
  }
  tbrt::Runtime rt(native::runtime_options(app, tbrt::QueueMode::NATIVE_QUEUE));
  app.set_parallelism(1, rt.num_workers());
  app.display();

  std::vector<std::unique_ptr<native::GraphRun>> runs;
  std::vector<native::BlockSchedule> schedules;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    runs.push_back(std::make_unique<native::GraphRun>(g));
    schedules.emplace_back(*runs.back(), app.flag("-block", native::choose_block_rows(g, home != 0)),
                           home ? rt.num_workers() : 0);
  }

  native::wake_workers(rt);
  rt.reset_stats();
  double discovery_s = 0;  // choosing and building block graphs (two clock reads per block)
  const double start = taskbench::wall_time();
  for (bool more = true; more;) {
    more = false;
    for (native::BlockSchedule& s : schedules) {
      if (s.done()) continue;
      const double t0 = taskbench::wall_time();
      const native::BlockSchedule::Block b = s.next();
      discovery_s += taskbench::wall_time() - t0;
      rt.submit(b.graph, std::uint32_t(b.replays), b.rows);
      more = true;
    }
    if (more) rt.wait();
  }
  const double elapsed = taskbench::wall_time() - start;
  for (const auto& run : runs) run->buffers.check_last_row();

  std::string blocks, lines;
  for (const native::BlockSchedule& s : schedules)
    blocks += (blocks.empty() ? "" : ",") + std::string("{\"rows\":") + std::to_string(s.block_rows()) +
              ",\"replays\":" + std::to_string(s.replays()) + ",\"builds\":" + std::to_string(s.builds()) +
              ",\"submits\":" + std::to_string(s.submits()) + "}";
  char build[64];
  std::snprintf(build, sizeof build, "%.9g", discovery_s);
  app.add_report_json("schedule", "{\"mode\":\"persistent\",\"homed\":" + std::string(home ? "true" : "false") + ",\"discovery_seconds\":" +
                                      std::string(build) + ",\"graphs\":[" + blocks + "]}");
  if (app.flag("-breakdown", 0)) lines = native::add_breakdown(app, rt.stats(), discovery_s);
  app.report(elapsed);
  std::fputs(lines.c_str(), stdout);
  return 0;
}
