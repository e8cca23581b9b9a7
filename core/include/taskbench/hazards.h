// Which tasks a task must wait for when its graph's outputs live in PointBuffers' two-slot
// layout: task (t, i) writes slot t mod 2 of column i, overwriting what (t-2, i) wrote, and the
// tasks of a column share one scratch buffer. One model for every system that orders tasks by
// edges or events (native, tbb, realm, cuda); a system that waits for each whole row gets all
// of this from its barrier.
//
//   read after write   the producers of its inputs: task_dependencies(t, i), in row t-1;
//   write after read   the readers of the slot it overwrites: task_successors(t-2, i), row t-1;
//   write after write  (t-2, i) itself when no task read it (else its readers already order it);
//   scratch            (t-1, i) when the kernel uses scratch (same column, same buffer).
//
// A column's rows are one interval of t for every pattern (dom and tree included), so the slot's
// previous writer is (t-2, i) when that task exists and no task otherwise, and (t-2, i) existing
// implies (t-1, i) does. For symmetric patterns (stencil, nearest with an odd radix, all_to_all)
// the write-after-read set is within the inputs, and where a task always reads its own column so
// are the other two: inputs_cover_all() is checked once per graph, and a task's waits then cost
// one dependency query.
#pragma once

#include <algorithm>
#include <vector>

#include "taskbench/task_graph.h"

namespace taskbench {

class Hazards {
 public:
  explicit Hazards(const TaskGraph& g);

  // Whether every task's waits are its inputs' producers (then for_each visits just those).
  bool inputs_cover_all() const { return inputs_cover_all_; }

  // Calls visit(row, j) once for each task (row, j) that (t, i) must wait for, in ascending
  // (row, j): (t-2, i) for a write after write, then tasks of row t-1.
  template <class Visit>
  void for_each(long t, long i, Visit&& visit) {
    if (t == 0) return;
    Interval* b = intervals_.data();
    long n = g_.task_dependencies(t, i, b);
    if (inputs_cover_all_) {
      for (long k = 0; k < n; ++k)
        for (long j = b[k].start; j <= b[k].end; ++j) visit(t - 1, j);
      return;
    }
    if (t >= 2 && g_.contains(t - 2, i)) {
      const long readers = g_.task_successors(t - 2, i, b + n);
      if (readers == 0) visit(t - 2, i);
      n += readers;
    }
    if (g_.scratch_bytes() > 0 && g_.contains(t - 1, i)) b[n++] = {i, i};
    n = merge(b, n);
    for (long k = 0; k < n; ++k)
      for (long j = b[k].start; j <= b[k].end; ++j) visit(t - 1, j);
  }

 private:
  // Sorts by start and joins overlapping or adjacent intervals (a handful of entries).
  static long merge(Interval* b, long n) {
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

  TaskGraph g_;
  std::vector<Interval> intervals_;  // inputs, readers and the column itself
  bool inputs_cover_all_;
};

}  // namespace taskbench
