// The predecessors of a task in a flow graph whose columns keep two output fields (task (t, i)
// writes field t mod 2) and one scratch buffer, as PointBuffers lays them out. A flow graph
// orders only what its edges say, so besides the task's inputs (read-after-write) it must wait
// for:
//  - the readers of the output it overwrites (write-after-read): the consumers of the last task
//    of its column that wrote the same field; where that output had none (trivial, the edges of
//    dom and tree), that task itself (write-after-write: else the older write may land last);
//  - the previous task of its column when the kernel uses scratch (both use the buffer).
// A timestep-per-barrier system gets these for free; here they are edges.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "taskbench/task_graph.h"

namespace tbb_system {

// (row, column) of a task.
using Task = std::pair<long, long>;

class Predecessors {
 public:
  explicit Predecessors(const taskbench::TaskGraph& g)
      : g_(g),
        intervals_(static_cast<size_t>(std::max(1L, g.max_intervals()))),
        last_row_(static_cast<size_t>(g.max_width()), -1),
        last_writer_{std::vector<long>(static_cast<size_t>(g.max_width()), -1),
                     std::vector<long>(static_cast<size_t>(g.max_width()), -1)} {}

  // The distinct predecessors of (t, i), sorted. Call in row order: it records (t, i) as the
  // latest task of column i.
  const std::vector<Task>& of(long t, long i) {
    out_.clear();
    const long n = g_.task_dependencies(t, i, intervals_.data());
    add(t - 1, n);
    long& writer = last_writer_[t % 2][static_cast<size_t>(i)];
    if (writer >= 0) {
      const long readers = g_.task_successors(writer, i, intervals_.data());
      if (readers > 0) add(writer + 1, readers);
      else out_.emplace_back(writer, i);
    }
    writer = t;
    long& previous = last_row_[static_cast<size_t>(i)];
    if (g_.scratch_bytes() > 0 && previous >= 0) out_.emplace_back(previous, i);
    previous = t;
    std::sort(out_.begin(), out_.end());
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
    return out_;
  }

 private:
  void add(long row, long n) {
    for (long d = 0; d < n; ++d)
      for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) out_.emplace_back(row, j);
  }

  const taskbench::TaskGraph& g_;
  std::vector<taskbench::Interval> intervals_;
  std::vector<long> last_row_;         // per column: the latest row that has a task there
  std::vector<long> last_writer_[2];   // per field and column: the latest row that wrote it
  std::vector<Task> out_;
};

}  // namespace tbb_system
