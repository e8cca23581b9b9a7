#include "graph_check.h"

#include <set>
#include <tuple>
#include <vector>

namespace taskbench {
namespace {

bool in_intervals(const std::vector<Interval>& iv, long n, long p) {
  for (long k = 0; k < n; ++k)
    if (iv[k].start <= p && p <= iv[k].end) return true;
  return false;
}

std::string task_name(long t, long i) {
  return "(t=" + std::to_string(t) + ", i=" + std::to_string(i) + ")";
}

}  // namespace

std::string check_graph_consistency(const TaskGraph& g) {
  std::vector<Interval> deps(g.max_intervals()), back(g.max_intervals());
  std::set<std::tuple<long, long, long, long, long>> checked;
  for (long t = 1; t < g.timesteps(); ++t) {
    const long plo = g.offset(t - 1), phi = plo + g.width(t - 1) - 1;
    const long lo = g.offset(t), hi = lo + g.width(t) - 1;
    // Rows repeat; checking each distinct (dependence set, row, previous row) once suffices.
    if (!checked.insert({g.dependence_set(t), plo, phi, lo, hi}).second) continue;
    for (long i = lo; i <= hi; ++i) {
      const long n = g.task_dependencies(t, i, deps.data());
      for (long k = 0; k < n; ++k) {
        if (deps[k].start > deps[k].end || (k > 0 && deps[k].start <= deps[k - 1].end + 1))
          return "dependencies of " + task_name(t, i) + " are not sorted, disjoint intervals";
        for (long j = deps[k].start; j <= deps[k].end; ++j) {
          if (j < plo || j > phi)
            return "dependency " + task_name(t - 1, j) + " of " + task_name(t, i) +
                   " is outside the previous row";
          const long m = g.task_successors(t - 1, j, back.data());
          if (!in_intervals(back, m, i))
            return task_name(t, i) + " depends on " + task_name(t - 1, j) +
                   " but is not among its successors";
        }
      }
    }
    for (long j = plo; j <= phi; ++j) {
      const long m = g.task_successors(t - 1, j, back.data());
      for (long k = 0; k < m; ++k)
        for (long i = back[k].start; i <= back[k].end; ++i) {
          if (i < lo || i > hi)
            return "successor " + task_name(t, i) + " of " + task_name(t - 1, j) +
                   " is outside the next row";
          const long n = g.task_dependencies(t, i, deps.data());
          if (!in_intervals(deps, n, j))
            return task_name(t, i) + " is a successor of " + task_name(t - 1, j) +
                   " but does not depend on it";
        }
    }
  }
  return "";
}

}  // namespace taskbench
