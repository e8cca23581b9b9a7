// tbb_flow: a oneTBB flow graph with one continue_node per point per timestep. An edge runs
// from every producer to its consumer (and the orderings taskbench/hazards.h adds for the
// reused buffers); tasks without predecessors hang off one broadcast_node, and one try_put into it
// runs every graph, which ends at wait_for_all. The flow graph is built inside the timed
// region: it is this run's task graph, built once and run once, as openmp_task creates its
// tasks in the run (the JSON report's system_report.discovery has the construction time).
// -persistent: a flow graph of a window of rows (window.h), built before the timed region as a
// user with a fixed-shape iteration would, then replayed until every row ran.
#include <oneapi/tbb/flow_graph.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "window.h"
#include "taskbench/app.h"
#include "taskbench/hazards.h"
#include "taskbench/point_buffers.h"

namespace flow = oneapi::tbb::flow;

namespace {

using Node = flow::continue_node<flow::continue_msg>;

// The nodes of one task graph, row by row (node(t, i) is rows[t][i - offset(t)]).
class GraphNodes {
 public:
  GraphNodes(flow::graph& fg, flow::broadcast_node<flow::continue_msg>& start,
             const taskbench::PointBuffers& b)
      : g_(b.graph()), rows_(static_cast<size_t>(g_.timesteps())) {
    taskbench::Hazards hazards(g_);
    for (long t = 0; t < g_.timesteps(); ++t) {
      std::vector<std::unique_ptr<Node>>& row = rows_[static_cast<size_t>(t)];
      row.reserve(static_cast<size_t>(g_.width(t)));
      for (long i = g_.offset(t), end = i + g_.width(t); i < end; ++i) {
        row.push_back(std::make_unique<Node>(fg, [&b, t, i](const flow::continue_msg&) { b.run(t, i); }));
        bool waits = false;
        hazards.for_each(t, i, [&](long before, long j) {
          flow::make_edge(node(before, j), *row.back());
          waits = true;
        });
        if (!waits) flow::make_edge(start, *row.back());
      }
    }
  }

 private:
  Node& node(long t, long i) { return *rows_[static_cast<size_t>(t)][static_cast<size_t>(i - g_.offset(t))]; }

  const taskbench::TaskGraph& g_;
  std::vector<std::vector<std::unique_ptr<Node>>> rows_;
};

// {"seconds", "tasks"}: the time spent building the flow graph, for `taskbench study discovery`.
std::string discovery_json(double seconds, const std::vector<taskbench::TaskGraph>& graphs) {
  long tasks = 0;
  for (const taskbench::TaskGraph& g : graphs)
    for (long t = 0; t < g.timesteps(); ++t) tasks += g.width(t);
  char json[96];
  std::snprintf(json, sizeof json, "{\"seconds\":%.9g,\"tasks\":%ld}", seconds, tasks);
  return json;
}

// Replays the window until every row of the longest graph ran; returns the replays' time.
// The report's system_report.persistent_graph has the construction time, rows and replays.
double run_persistent(taskbench::App& app, const std::vector<taskbench::PointBuffers>& buffers,
                      tbb_system::Threads& threads) {
  const long rows = tbb_system::window_rows(app.graphs(), app.flag("-window", 16));
  const long steps = taskbench::max_timesteps(app.graphs());
  double elapsed = 0;
  threads.arena.execute([&] {
    const double built = taskbench::wall_time();
    flow::graph fg;
    flow::broadcast_node<flow::continue_msg> begin(fg);
    long base = 0, nodes = 0;
    std::vector<tbb_system::WindowNodes> windows;
    windows.reserve(buffers.size());
    for (const taskbench::PointBuffers& b : buffers) nodes += windows.emplace_back(fg, begin, b, rows, base).size();
    const double start = taskbench::wall_time();
    for (base = 0; base < steps; base += rows) {
      begin.try_put(flow::continue_msg());
      fg.wait_for_all();
    }
    elapsed = taskbench::wall_time() - start;
    char json[128];
    std::snprintf(json, sizeof json, "{\"seconds\":%.9g,\"rows\":%ld,\"nodes\":%ld,\"replays\":%ld}",
                  start - built, rows, nodes, (steps + rows - 1) / rows);
    app.add_report_json("persistent_graph", json);
  });
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME, {tbb_system::worker_flag(),
      {"-persistent", "", "a flow graph of a window of rows, built before the timing, replayed", 0},
      {"-window", "ROWS", "-persistent: rows per window, rounded up to the pattern's period (default 16)", 1,
       1L << 20}}});
  tbb_system::Threads threads(app);
  app.display();
  const std::vector<taskbench::PointBuffers> buffers = tbb_system::point_buffers(app);
  if (app.flag("-persistent", 0)) {
    const double elapsed = run_persistent(app, buffers, threads);
    taskbench::check_last_rows(buffers);
    app.report(elapsed);
    return 0;
  }
  double construction = 0;
  const double start = taskbench::wall_time();
  threads.arena.execute([&] {
    // Built inside the arena: a flow graph runs its nodes in the arena it was created in.
    flow::graph fg;
    flow::broadcast_node<flow::continue_msg> begin(fg);
    std::vector<GraphNodes> nodes;
    nodes.reserve(buffers.size());
    for (const taskbench::PointBuffers& b : buffers) nodes.emplace_back(fg, begin, b);
    construction = taskbench::wall_time() - start;
    begin.try_put(flow::continue_msg());
    fg.wait_for_all();
  });
  const double elapsed = taskbench::wall_time() - start;
  app.add_report_json("discovery", discovery_json(construction, app.graphs()));
  taskbench::check_last_rows(buffers);
  app.report(elapsed);
  return 0;
}
