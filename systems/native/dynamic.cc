// native_dynamic: tasks discovered one timestep at a time by the owner thread, as OpenMP
// tasking does: create each task, wire it to its predecessors' handles, submit it. Workers
// run tasks meanwhile; past tbrt's max_outstanding the owner runs tasks itself (throttle).
// Same edges as the persistent systems (taskbench/hazards.h), graphs interleaved per timestep.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "taskbench/hazards.h"
#include "tbrt/clock.h"

namespace {

// Handles of one graph's last three rows: predecessors are at most two rows back, and a
// handle keeps its task wireable (tbrt frees a task once it ran and its handle is gone).
struct Wiring {
  explicit Wiring(native::GraphRun& r)
      : run(r), preds(r.buffers.graph()) {
    for (auto& row : rows) row.resize(r.buffers.graph().max_width());
  }
  native::GraphRun& run;
  taskbench::Hazards preds;
  std::vector<tbrt::TaskHandle> rows[3];
};

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, native::app_options(TASKBENCH_SYSTEM_NAME));
  const bool breakdown = app.flag("-breakdown", 0) != 0;
  tbrt::Runtime rt(native::runtime_options(app, tbrt::QueueMode::kLifo));
  app.set_parallelism(1, rt.num_workers());
  app.display();

  std::vector<std::unique_ptr<native::GraphRun>> runs;
  std::vector<Wiring> wirings;
  for (const taskbench::TaskGraph& g : app.graphs()) runs.push_back(std::make_unique<native::GraphRun>(g));
  wirings.reserve(runs.size());
  for (auto& r : runs) wirings.emplace_back(*r);
  const long steps = taskbench::max_timesteps(app.graphs());
  std::vector<std::pair<long, long>> preds;  // of the task being wired: (row, column)

  native::wake_workers(rt);
  rt.reset_stats();
  std::uint64_t enumerate = 0;  // ticks in taskbench::Hazards (-breakdown only)
  const double start = taskbench::wall_time();
  for (long t = 0; t < steps; ++t) {
    for (Wiring& w : wirings) {
      const taskbench::TaskGraph& g = w.run.buffers.graph();
      if (t >= g.timesteps()) continue;
      std::vector<tbrt::TaskHandle>& row = w.rows[t % 3];
      const int priority = native::priority_of(g.timesteps() - t);
      for (long i = g.offset(t), end = i + g.width(t); i < end; ++i) {
        const std::uint64_t t0 = breakdown ? tbrt::ticks() : 0;
        preds.clear();
        w.preds.for_each(t, i, [&](long pt, long j) { preds.emplace_back(pt, j); });
        if (breakdown) enumerate += tbrt::ticks() - t0;
        tbrt::TaskHandle h = rt.create(&native::run_task, &w.run, t, i, priority);
        for (const auto& [pt, j] : preds) rt.add_dependency(w.rows[pt % 3][j], h);
        rt.submit(h);
        row[i] = std::move(h);  // drops the handle of (t-3, i)
      }
    }
  }
  rt.wait();
  const double elapsed = taskbench::wall_time() - start;
  wirings.clear();  // handles go before the runtime
  for (const auto& run : runs) run->buffers.check_last_row();

  app.add_report_json("schedule", "{\"mode\":\"dynamic\"}");
  std::string lines;
  if (breakdown)
    lines = native::add_breakdown(app, rt.stats(), tbrt::ticks_to_seconds(enumerate));
  app.report(elapsed);
  std::fputs(lines.c_str(), stdout);
  return 0;
}
