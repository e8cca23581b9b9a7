#include "totals.h"

#include <map>
#include <tuple>

namespace taskbench {
namespace {

struct RowCounts {
  long long dependencies = 0, local = 0;
};

// Rows with the same dependence set and the same neighbouring row have the same counts, so
// each distinct row is counted once (a 1000-step stencil has one distinct row, dom has T).
RowCounts count_row(const TaskGraph& g, long t, long block) {
  std::vector<Interval> deps(g.max_intervals());
  RowCounts c;
  const long lo = g.offset(t), hi = lo + g.width(t);
  for (long i = lo; i < hi; ++i) {
    const long n = g.task_dependencies(t, i, deps.data());
    c.dependencies += count_points(deps.data(), n);
    if (block <= 0) continue;
    const long node_lo = (i / block) * block, node_hi = node_lo + block - 1;
    for (long k = 0; k < n; ++k) {
      long a = std::max(deps[k].start, node_lo), b = std::min(deps[k].end, node_hi);
      if (a <= b) c.local += b - a + 1;
    }
  }
  return c;
}

}  // namespace

Totals compute_totals(const std::vector<TaskGraph>& graphs, long nodes) {
  Totals totals;
  totals.local_estimated = true;
  for (const TaskGraph& g : graphs) {
    const bool estimable = nodes <= g.max_width() && g.max_width() % nodes == 0;
    totals.local_estimated = totals.local_estimated && estimable;
    const long block = estimable ? g.max_width() / nodes : 0;
    GraphTotals gt;
    std::map<std::tuple<long, long, long, long, long>, RowCounts> rows;
    const bool per_task_flops = g.kernel().type == LOAD_IMBALANCE;
    for (long t = 0; t < g.timesteps(); ++t) {
      const long width = g.width(t), offset = g.offset(t);
      gt.tasks += width;
      if (t > 0) {
        auto key = std::make_tuple(g.dependence_set(t), g.offset(t - 1), g.width(t - 1), offset, width);
        auto it = rows.find(key);
        if (it == rows.end()) it = rows.emplace(key, count_row(g, t, block)).first;
        gt.dependencies += it->second.dependencies;
        gt.local_dependencies += it->second.local;
      }
      if (per_task_flops) {
        for (long i = offset; i < offset + width; ++i) gt.flops += g.flops_per_task(t, i);
      } else {
        gt.flops += width * g.flops_per_task(t, offset);
      }
      gt.bytes += width * g.bytes_per_task(t, offset);
    }
    totals.graphs.push_back(gt);
    totals.sum.tasks += gt.tasks;
    totals.sum.dependencies += gt.dependencies;
    totals.sum.local_dependencies += gt.local_dependencies;
    totals.sum.flops += gt.flops;
    totals.sum.bytes += gt.bytes;
  }
  return totals;
}

}  // namespace taskbench
