// The memory one rank uses for one graph: two output fields per owned column (row t writes
// field t mod 2 while row t-1's outputs stay readable), one scratch buffer per owned column,
// and an input slot per input of a step's tasks (plan.h). Every address is fixed at setup, so
// the step plans can hold plain pointers and the run allocates nothing.
#pragma once

#include <cstdlib>
#include <memory>
#include <vector>

#include "taskbench/task_graph.h"

namespace taskbench_mpi {

class RankBuffers {
 public:
  RankBuffers(const taskbench::TaskGraph& g, long first, long end)
      : first_(first),
        columns_(end - first),
        bytes_(g.output_bytes()),
        stride_(round_up(bytes_)),
        scratch_bytes_(g.scratch_bytes()),
        outputs_(allocate(2 * columns_ * stride_)),
        scratch_(allocate(columns_ * scratch_bytes_)) {
    if (scratch_bytes_ > 0) task_graph_prepare_scratch(scratch_.get(), columns_ * scratch_bytes_);
  }

  size_t output_bytes() const { return bytes_; }
  size_t scratch_bytes() const { return scratch_bytes_; }
  char* output(long t, long column) const {
    return outputs_.get() + ((t % 2) * columns_ + (column - first_)) * stride_;
  }
  char* scratch(long column) const {
    return scratch_bytes_ == 0 ? nullptr : scratch_.get() + (column - first_) * scratch_bytes_;
  }
  // Input slot k, allocated on first use (each step plan numbers its inputs from 0, and a
  // step's tasks all run before the next step receives or copies into the same slots).
  char* input_slot(size_t k) {
    while (slots_.size() <= k) slots_.push_back(allocate(stride_));
    return slots_[k].get();
  }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  using Memory = std::unique_ptr<char, Free>;
  static size_t round_up(size_t bytes) { return (bytes + 63) / 64 * 64; }
  static Memory allocate(size_t bytes) {
    // 64-byte aligned: threads of mpi_openmp never share a cache line between columns.
    return Memory(static_cast<char*>(std::aligned_alloc(64, round_up(bytes == 0 ? 1 : bytes))));
  }

  long first_, columns_;
  size_t bytes_, stride_, scratch_bytes_;
  Memory outputs_, scratch_;
  std::vector<Memory> slots_;
};

}  // namespace taskbench_mpi
