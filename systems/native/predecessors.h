// Which tasks (t, i) must wait for, given that outputs are double-buffered per column
// (task (t, i) writes buffer t mod 2 of column i, overwriting what (t-2, i) wrote) and
// that the tasks of a column share one scratch buffer. Shared by the persistent and the
// dynamic systems, so both run exactly the same graph.
//
//   RAW  the producers of its inputs: task_dependencies(t, i), in row t-1;
//   WAR  the readers of the buffer it overwrites: task_successors(t-2, i), in row t-1;
//   WAW  (t-2, i) itself when nobody read it (else the readers already order it);
//   SCR  (t-1, i) when the kernel uses scratch (same column, same scratch buffer).
//
// For symmetric patterns (stencil, nearest with odd radix, all_to_all, ...) WAR is part of
// RAW, and when a task always reads its own column, so are WAW and SCR: the set is just RAW.
// That is checked once per graph (only_raw), so discovery then costs one query per task. A column's rows form one interval of t for every
// pattern (dom, tree included), so (t-2, i) and (t, i) existing implies (t-1, i) exists.
#pragma once

#include <algorithm>
#include <vector>

#include "taskbench/task_graph.h"

namespace native {

class Predecessors {
 public:
  explicit Predecessors(const taskbench::TaskGraph& g)
      : g_(g), buf_(2 * std::max(1L, g.max_intervals()) + 1), only_raw_(raw_covers_all()) {}

  // Calls f(row, j) once for every task (row, j) that (t, i) must wait for; row is t-1
  // (ascending j) or, for WAW only, t-2.
  template <class F>
  void for_each(long t, long i, F f) {
    if (t == 0) return;
    taskbench::Interval* b = buf_.data();
    long n = g_.task_dependencies(t, i, b);
    if (only_raw_) {
      for (long k = 0; k < n; ++k)
        for (long j = b[k].start; j <= b[k].end; ++j) f(t - 1, j);
      return;
    }
    bool waw = false;
    if (t >= 2 && g_.contains(t - 2, i)) {
      const long m = g_.task_successors(t - 2, i, b + n);
      waw = m == 0;
      n += m;
    }
    if (g_.scratch_bytes() > 0 && g_.contains(t - 1, i)) b[n++] = {i, i};
    n = merge(b, n);
    for (long k = 0; k < n; ++k)
      for (long j = b[k].start; j <= b[k].end; ++j) f(t - 1, j);
    if (waw) f(t - 2, i);
  }

 private:
  // Whether, for every dependence set and point i, the relation holds i itself and every
  // reader of i one row earlier: then RAW covers WAR, WAW and SCR (both are clipped to the
  // same row t-1, so the unclipped relation decides). Skipped (false) for huge graphs.
  bool raw_covers_all() const {
    const long w = g_.max_width(), sets = std::max(1L, g_.dependence_sets());
    if (double(w) * double(sets) > double(1 << 22)) return false;
    std::vector<taskbench::Interval> deps(buf_.size()), readers(buf_.size());
    for (long t = 2; t < 2 + sets; ++t)
      for (long i = 0; i < w; ++i) {
        const long n = g_.dependencies(g_.dependence_set(t), i, deps.data());
        const long m = g_.reverse_dependencies(g_.dependence_set(t - 1), i, readers.data());
        if (!covers(deps.data(), n, {i, i})) return false;
        for (long k = 0; k < m; ++k)
          if (!covers(deps.data(), n, readers[k])) return false;
      }
    return true;
  }
  static bool covers(const taskbench::Interval* b, long n, taskbench::Interval x) {
    for (long k = 0; k < n; ++k)
      if (b[k].start <= x.start && x.end <= b[k].end) return true;
    return false;
  }

  // Sorts by start and joins overlapping or adjacent intervals (a handful of entries).
  static long merge(taskbench::Interval* b, long n) {
    if (n <= 1) return n;
    for (long k = 1; k < n; ++k)  // insertion sort: a few entries, mostly in order
      for (long m = k; m > 0 && b[m].start < b[m - 1].start; --m) std::swap(b[m], b[m - 1]);
    long out = 0;
    for (long k = 1; k < n; ++k) {
      if (b[k].start <= b[out].end + 1)
        b[out].end = std::max(b[out].end, b[k].end);
      else
        b[++out] = b[k];
    }
    return out + 1;
  }

  taskbench::TaskGraph g_;
  std::vector<taskbench::Interval> buf_;
  bool only_raw_;
};

}  // namespace native
