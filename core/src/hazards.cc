#include "taskbench/hazards.h"

namespace taskbench {
namespace {

bool covers(const Interval* b, long n, Interval x) {
  for (long k = 0; k < n; ++k)
    if (b[k].start <= x.start && x.end <= b[k].end) return true;
  return false;
}

// Whether, for every dependence set and point i, the relation holds i itself and every reader
// of i one row earlier: then the inputs cover the other waits (all are clipped to the same row
// t-1, so the unclipped relation decides). Skipped (false) for huge graphs.
bool inputs_cover_all(const TaskGraph& g, long max_intervals) {
  const long w = g.max_width(), sets = std::max(1L, g.dependence_sets());
  if (double(w) * double(sets) > double(1 << 22)) return false;
  std::vector<Interval> deps(max_intervals), readers(max_intervals);
  for (long t = 2; t < 2 + sets; ++t)
    for (long i = 0; i < w; ++i) {
      const long n = g.dependencies(g.dependence_set(t), i, deps.data());
      const long m = g.reverse_dependencies(g.dependence_set(t - 1), i, readers.data());
      if (!covers(deps.data(), n, {i, i})) return false;
      for (long k = 0; k < m; ++k)
        if (!covers(deps.data(), n, readers[k])) return false;
    }
  return true;
}

}  // namespace

Hazards::Hazards(const TaskGraph& g)
    : g_(g),
      intervals_(2 * std::max(1L, g.max_intervals()) + 1),
      inputs_cover_all_(taskbench::inputs_cover_all(g, std::max(1L, g.max_intervals()))) {}

}  // namespace taskbench
