// Exact task, dependence, FLOP and byte totals of a set of graphs (docs/spec.md §5).
#pragma once

#include <vector>

#include "taskbench/task_graph.h"

namespace taskbench {

struct GraphTotals {
  long long tasks = 0, dependencies = 0, local_dependencies = 0, flops = 0, bytes = 0;
};

struct Totals {
  std::vector<GraphTotals> graphs;
  GraphTotals sum;
  bool local_estimated = false;  // columns split evenly over -nodes (width divisible by nodes)
};

Totals compute_totals(const std::vector<TaskGraph>& graphs, long nodes);

}  // namespace taskbench
