// Submission in the order both StarPU systems use: row by row, the graphs interleaved per row
// (so tasks of different graphs overlap), each task through `insert` with its data described.
#pragma once

#include <memory>
#include <vector>

#include "graph_handles.h"
#include "point_codelet.h"
#include "taskbench/point_buffers.h"

namespace taskbench_starpu {

// `insert(task, data, n)` submits one task: starpu_task_insert or starpu_mpi_task_insert.
template <class Insert>
void submit_all(const std::vector<std::unique_ptr<GraphHandles>>& graphs, Insert&& insert) {
  long max_intervals = 1, max_data = 2;
  for (const auto& h : graphs) {
    max_intervals = std::max(max_intervals, h->graph().max_intervals());
    max_data = std::max(max_data, h->graph().max_dependencies() + 2);
  }
  std::vector<taskbench::Interval> deps(max_intervals);
  std::vector<starpu_data_descr> data(max_data);
  std::vector<taskbench::TaskGraph> shapes;
  for (const auto& h : graphs) shapes.push_back(h->graph());
  const long steps = taskbench::max_timesteps(shapes);
  for (long t = 0; t < steps; ++t)
    for (const auto& h : graphs) {
      const taskbench::TaskGraph& g = h->graph();
      if (t >= g.timesteps()) continue;
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        const size_t n = h->describe(t, i, deps, data);
        insert(PointTask{&g, t, i}, data.data(), n);
      }
    }
}

}  // namespace taskbench_starpu
