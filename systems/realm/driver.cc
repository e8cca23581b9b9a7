// realm_driver and realm_driver_subgraph: our own designs, not the paper's port. One thread (the
// process's main thread, not a Realm processor) issues every task of every processor, with
// events for dependencies: a spawn per task whose precondition merges its producers' completion
// events (realm_driver), or a Subgraph per row (or per K rows) instantiated with the row's
// outside events (realm_driver_subgraph). Outputs in 2 slots per column (taskbench::Hazards).
#include "driver.h"

#include <realm/subgraph.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "storage.h"
#include "subgraph_edge.h"
#include "taskbench/hazards.h"
#include "taskbench/point_buffers.h"

namespace taskbench_realm {
namespace {

using Realm::Event;
using Realm::Processor;

// Per graph, the completion event of each column's latest task of each row parity: what
// taskbench::Hazards names is always there, since a task waits only for rows t-1 and t-2. A
// column's last two tasks follow all its earlier ones, so these events end the graph too.
struct LatestTasks {
  std::vector<Event> of_parity[2];
  explicit LatestTasks(long width) {
    for (auto& events : of_parity) events.assign(width, Event::NO_EVENT);
  }
  Event& of(long t, long i) { return of_parity[t % 2][i]; }
  Event all() const {
    std::vector<Event> events(of_parity[0]);
    events.insert(events.end(), of_parity[1].begin(), of_parity[1].end());
    return Event::merge_events(events);
  }
};

// What the driver tracks while it issues every graph's tasks, row by row.
struct Issue {
  std::vector<taskbench::Hazards> hazards;
  std::vector<LatestTasks> latest;
  long steps = 0;  // rows of the longest graph
  Issue() {
    std::vector<taskbench::TaskGraph> shapes;
    for (const GraphData& d : graph_data) {
      shapes.push_back(d.graph);
      hazards.emplace_back(d.graph);
      latest.emplace_back(d.graph.max_width());
    }
    steps = taskbench::max_timesteps(shapes);
  }
  // Triggers once every task issued has run.
  Event end() const {
    std::vector<Event> ends;
    for (const LatestTasks& l : latest) ends.push_back(l.all());
    return Event::merge_events(ends);
  }
};

// Column i's processor: a contiguous block of columns per processor.
Processor processor_of(const std::vector<Processor>& procs, const taskbench::TaskGraph& g, long i) {
  return procs[static_cast<size_t>(i * static_cast<long>(procs.size()) / g.max_width())];
}

// realm_driver: one spawn per task, its precondition merged from the events of the tasks it must
// wait for (taskbench::Hazards: its producers, and what the reuse of its column's buffers needs).
Event spawn_all(const std::vector<Processor>& procs) {
  Issue issue;
  std::vector<Event> pre;
  for (long t = 0; t < issue.steps; ++t)
    for (size_t gi = 0; gi < graph_data.size(); ++gi) {
      const taskbench::TaskGraph& g = graph_data[gi].graph;
      if (t >= g.timesteps()) continue;
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        pre.clear();
        LatestTasks& latest = issue.latest[gi];
        issue.hazards[gi].for_each(t, i, [&](long row, long j) { pre.push_back(latest.of(row, j)); });
        const PointArgs args{static_cast<long>(gi), t, i};
        latest.of(t, i) = processor_of(procs, g, i).spawn(kPointTask, &args, sizeof args, Event::merge_events(pre));
      }
    }
  return issue.end();
}

// realm_driver_subgraph: K rows of a graph (-subgraph-rows, default 1) as one Subgraph with one
// task per point, wired inside it as taskbench::Hazards names (all in rows t-1 and t-2), and to 2W
// external preconditions (W = the graph's max width) for what lies before the block: port j is
// the completion of column j's latest task of the parity of the block's row b-1, port W+j of
// row b-2. With -subgraph-merge those 2W events are merged once per instance into the one
// precondition every task with an outside dependency waits for (fewer ports, coarser waits).
// The postconditions are the completions of the block's last two rows. Blocks with the same
// wiring share one Subgraph; each task's t comes from the instance's arguments (b, b+1, ...)
// by interpolation.
class BlockSubgraphs {
 public:
  BlockSubgraphs(const std::vector<Processor>& procs, long rows, bool merge)
      : procs_(procs), rows_(rows), merge_(merge) {}
  ~BlockSubgraphs() {
    for (auto& entry : built_) entry.second.graph.destroy();
  }
  size_t distinct() const { return built_.size(); }

  Event run_all() {
    Issue issue;
    std::vector<Event> pre, post;
    std::vector<long> steps;
    for (long b = 0; b < issue.steps; b += rows_)
      for (size_t gi = 0; gi < graph_data.size(); ++gi) {
        const taskbench::TaskGraph& g = graph_data[gi].graph;
        if (b >= g.timesteps()) continue;
        const long rows = std::min(rows_, g.timesteps() - b);
        wire(gi, g, issue.hazards[gi], b, rows);
        LatestTasks& latest = issue.latest[gi];
        pre.assign(latest.of_parity[(b + 1) % 2].begin(), latest.of_parity[(b + 1) % 2].end());
        pre.insert(pre.end(), latest.of_parity[b % 2].begin(), latest.of_parity[b % 2].end());
        if (merge_) pre.assign(1, Event::merge_events(pre));
        const Built& built = subgraph(g, b);
        steps.resize(size_t(rows));
        for (long k = 0; k < rows; ++k) steps[size_t(k)] = b + k;
        post.assign(built.posts.size(), Event::NO_EVENT);  // Realm fills them in, one per port
        built.graph.instantiate(steps.data(), steps.size() * sizeof(long), Realm::ProfilingRequestSet(), pre,
                                post);
        for (size_t p = 0; p < post.size(); ++p) latest.of(b + built.posts[p].first, built.posts[p].second) = post[p];
      }
    return issue.end();
  }

 private:
  struct Built {
    Realm::Subgraph graph;
    std::vector<std::pair<long, long>> posts;  // per postcondition port: (row in block, column)
  };
  static constexpr long kRow = -2, kTask = -1;

  // wiring_ for rows b..b+rows-1: graph, rows, then per row kRow, offset, width, and per task
  // kTask and its ports: j or W+j outside the block (0 when merged), 2W + k W + j inside.
  void wire(size_t gi, const taskbench::TaskGraph& g, taskbench::Hazards& hazards, long b, long rows) {
    const long w = g.max_width();
    wiring_.assign({static_cast<long>(gi), rows});
    for (long t = b; t < b + rows; ++t) {
      wiring_.insert(wiring_.end(), {kRow, g.offset(t), g.width(t)});
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        wiring_.push_back(kTask);
        const size_t first_port = wiring_.size();
        hazards.for_each(t, i, [&](long row, long j) {
          const long port = row >= b ? 2 * w + (row - b) * w + j : merge_ ? 0 : row == b - 1 ? j : w + j;
          if (std::find(wiring_.begin() + long(first_port), wiring_.end(), port) == wiring_.end())
            wiring_.push_back(port);
        });
      }
    }
  }

  // The Subgraph for wiring_ (built from it on first use).
  const Built& subgraph(const taskbench::TaskGraph& g, long b) {
    auto found = built_.find(wiring_);
    if (found != built_.end()) return found->second;
    Realm::SubgraphDefinition def;
    def.concurrency_mode = Realm::SubgraphDefinition::CONCURRENT;  // blocks overlap in flight
    const long graph = wiring_[0], rows = wiring_[1], w = g.max_width();
    Built built;
    std::vector<long> row_first_task(static_cast<size_t>(rows)), row_offset(static_cast<size_t>(rows));
    long row = -1, column = 0, task = -1;
    auto dependency = [&](auto src_kind, long src, auto tgt_kind, long tgt) {
      def.dependencies.push_back(subgraph_edge(src_kind, src, tgt_kind, tgt));
    };
    for (size_t k = 2; k < wiring_.size(); ++k) {
      if (wiring_[k] == kRow) {
        ++row;
        row_offset[size_t(row)] = wiring_[k + 1];
        row_first_task[size_t(row)] = task + 1;
        column = wiring_[k + 1] - 1;
        k += 2;
        continue;
      }
      if (wiring_[k] == kTask) {
        ++task;
        ++column;
        Realm::SubgraphDefinition::TaskDesc desc;
        desc.proc = processor_of(procs_, g, column);
        desc.task_id = kPointTask;
        const PointArgs args{graph, b + row, column};
        desc.args.set(&args, sizeof args);
        def.tasks.push_back(desc);
        Realm::SubgraphDefinition::Interpolation timestep;
        timestep.offset = size_t(row) * sizeof(long);
        timestep.bytes = sizeof(long);
        timestep.target_kind = Realm::SubgraphDefinition::Interpolation::TARGET_TASK_ARGS;
        timestep.target_index = static_cast<unsigned>(task);
        timestep.target_offset = offsetof(PointArgs, t);
        timestep.redop_id = 0;
        def.interpolations.push_back(timestep);
        if (row >= rows - 2) {
          dependency(Realm::SubgraphDefinition::OPKIND_TASK, task, Realm::SubgraphDefinition::OPKIND_EXT_POSTCOND,
                     long(built.posts.size()));
          built.posts.emplace_back(row, column);
        }
        continue;
      }
      const long port = wiring_[k];
      if (port < 2 * w) {
        dependency(Realm::SubgraphDefinition::OPKIND_EXT_PRECOND, port, Realm::SubgraphDefinition::OPKIND_TASK, task);
      } else {
        const long src_row = (port - 2 * w) / w, j = (port - 2 * w) % w;
        dependency(Realm::SubgraphDefinition::OPKIND_TASK, row_first_task[size_t(src_row)] + j - row_offset[size_t(src_row)],
                   Realm::SubgraphDefinition::OPKIND_TASK, task);
      }
    }
    Realm::Subgraph::create_subgraph(built.graph, def, Realm::ProfilingRequestSet()).wait();
    return built_.emplace(wiring_, std::move(built)).first->second;
  }

  const std::vector<Processor>& procs_;
  const long rows_;
  const bool merge_;
  std::vector<long> wiring_;
  std::map<std::vector<long>, Built> built_;
};

}  // namespace

DriverResult run_driver(const std::vector<Processor>& procs, const DriverOptions& options) {
  DriverResult result;
  const double start = taskbench::wall_time();
  if (options.subgraph) {
    BlockSubgraphs blocks(procs, options.subgraph_rows, options.merge);
    const Event end = blocks.run_all();
    result.issue_seconds = taskbench::wall_time() - start;
    end.wait();
    result.subgraphs = blocks.distinct();
  } else {
    const Event end = spawn_all(procs);
    result.issue_seconds = taskbench::wall_time() - start;
    end.wait();
  }
  result.elapsed_seconds = taskbench::wall_time() - start;
  return result;
}

}  // namespace taskbench_realm
