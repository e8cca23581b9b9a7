// Submission in the original's order (its execute_main_loop): the graphs of a run (-and) one
// after the other, each row by row, every task through `insert` with its data described. Only
// submission is in sequence: one wait at the end lets the graphs' tasks run side by side.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "graph_handles.h"
#include "point_codelet.h"
#include "taskbench/point_buffers.h"

namespace taskbench_starpu {

// `insert(task, data, n)` submits one task: starpu_task_insert or starpu_mpi_task_insert.
template <class Insert>
void submit_all(const std::vector<std::unique_ptr<GraphHandles>>& graphs, Insert&& insert) {
  long max_intervals = 1, max_data = 1;
  for (const auto& h : graphs) {
    max_intervals = std::max(max_intervals, h->graph().max_intervals());
    max_data = std::max(max_data, h->graph().max_dependencies() + 1);
  }
  std::vector<taskbench::Interval> deps(max_intervals);
  std::vector<starpu_data_descr> data(max_data);
  for (const auto& h : graphs) {
    const taskbench::TaskGraph& g = h->graph();
    for (long t = 0; t < g.timesteps(); ++t)
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        const size_t n = h->describe(t, i, deps, data);
        insert(PointTask{&g, t, i}, data.data(), n);
      }
  }
}

}  // namespace taskbench_starpu
