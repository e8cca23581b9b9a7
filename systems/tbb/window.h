// The persistent variant of tbb_flow (-persistent): a flow graph of a window of `rows` rows,
// built once before the timed region and replayed, each replay running rows base..base+rows-1.
//
// What makes one window fit every replay:
//  - the dependence set of a row repeats with the pattern's period (task_graph_timestep_period:
//    fft's log2(width) sets, spread's and the random patterns' -period, 1 for the rest), so the
//    window's length is a multiple of every graph's period (window_rows) and row k of every
//    replay has the dependencies of row k of the first;
//  - dom's and tree's rows change width (and dom's offset) from row to row: the window has the
//    full width in every row with the unclipped relation, a superset of every row's edges, and a
//    node whose (t, i) is not in the graph (narrow rows, rows past a graph's last) only passes
//    its message on;
//  - the edges across two replays need no node: wait_for_all ends one replay before the next
//    starts, so a window's first row hangs off the start node, as do nodes with no predecessor.
// Within the window the edges are those of taskbench/hazards.h on full rows: the inputs, the readers
// of the output field a task overwrites (the consumers of (k-2, i), in row k-1, also when k-2 is
// in the previous replay: its readers in row 0 are this replay's) and, with scratch, the
// column's previous task: all of them in row k-1. Where the output of (k-2, i) has no reader in
// the window (trivial), nothing would order the field's two writes: the column is then chained,
// (k-2, i) -> (k-1, i) -> (k, i), as it is where (k-1, i)'s output has none (see chained).
#pragma once

#include <oneapi/tbb/flow_graph.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "taskbench/point_buffers.h"

namespace tbb_system {

// A multiple of every graph's period, at least min_rows; the whole run (one replay) when that
// is as long as the longest graph.
inline long window_rows(const std::vector<taskbench::TaskGraph>& graphs, long min_rows) {
  const long steps = std::max(1L, taskbench::max_timesteps(graphs));
  long period = 1;
  for (const taskbench::TaskGraph& g : graphs) {
    period = std::lcm(period, g.dependence_sets());
    if (period >= steps) return steps;
  }
  return std::min(steps, (min_rows + period - 1) / period * period);
}

class WindowNodes {
 public:
  using Node = oneapi::tbb::flow::continue_node<oneapi::tbb::flow::continue_msg>;

  // `base` is the first row of the replay under way: the caller sets it before each try_put.
  WindowNodes(oneapi::tbb::flow::graph& fg, oneapi::tbb::flow::broadcast_node<oneapi::tbb::flow::continue_msg>& start,
              const taskbench::PointBuffers& b, long rows, const long& base)
      : width_(b.graph().max_width()) {
    const taskbench::TaskGraph& g = b.graph();
    nodes_.reserve(static_cast<size_t>(rows * width_));
    std::vector<taskbench::Interval> intervals(static_cast<size_t>(std::max(1L, g.max_intervals())));
    std::vector<long> before;  // columns of row k-1
    for (long k = 0; k < rows; ++k)
      for (long i = 0; i < width_; ++i) {
        nodes_.push_back(std::make_unique<Node>(fg, [&b, &base, k, i](const oneapi::tbb::flow::continue_msg&) {
          const long t = base + k;
          if (b.graph().contains(t, i)) b.run(t, i);
        }));
        before.clear();
        if (k >= 1) add(before, intervals, g.dependencies(g.dependence_set(k), i, intervals.data()));
        if (k >= 1) add(before, intervals, g.reverse_dependencies(g.dependence_set(k - 1), i, intervals.data()));
        if (k >= 1 && chained(g, intervals, k, i)) before.push_back(i);
        std::sort(before.begin(), before.end());
        before.erase(std::unique(before.begin(), before.end()), before.end());
        if (before.empty()) oneapi::tbb::flow::make_edge(start, *nodes_.back());
        for (long j : before) oneapi::tbb::flow::make_edge(node(k - 1, j), *nodes_.back());
      }
  }

  long size() const { return static_cast<long>(nodes_.size()); }

 private:
  // Whether node (k, i), k >= 1, waits for (k-1, i): for the scratch they share, or to order the
  // writes of a field whose output no node of the next row reads: (k-1, i)'s (then (k+1, i)
  // follows it through (k, i)) or (k-2, i)'s, which (k, i) overwrites (in the window: k >= 2).
  static bool chained(const taskbench::TaskGraph& g, std::vector<taskbench::Interval>& intervals, long k, long i) {
    auto unread = [&](long row) {  // no node of row + 1 reads (row, i)
      const long n = g.reverse_dependencies(g.dependence_set(row + 1), i, intervals.data());
      return taskbench::count_points(intervals.data(), n) == 0;
    };
    return g.scratch_bytes() > 0 || unread(k - 1) || (k >= 2 && unread(k - 2));
  }

  static void add(std::vector<long>& columns, const std::vector<taskbench::Interval>& intervals, long n) {
    for (long d = 0; d < n; ++d)
      for (long j = intervals[d].start; j <= intervals[d].end; ++j) columns.push_back(j);
  }
  Node& node(long k, long i) { return *nodes_[static_cast<size_t>(k * width_ + i)]; }

  long width_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace tbb_system
