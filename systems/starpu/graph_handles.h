// StarPU data handles over one graph's PointBuffers: one handle per output buffer (field,
// column) and one per column's scratch buffer. A task names its output (W), its column's scratch
// (RW) and its producers' outputs (R); StarPU infers every dependency from those access modes,
// as its users write it (sequential consistency, on by default).
#pragma once

#include <starpu.h>

#include <functional>
#include <vector>

#include "taskbench/point_buffers.h"

namespace taskbench_starpu {

class GraphHandles {
 public:
  // `local(column)`: whether this process holds the column's memory. Columns it does not hold
  // are registered without memory (home node -1), for StarPU-MPI to fill from their owner.
  GraphHandles(const taskbench::PointBuffers& buffers, int fields,
               const std::function<bool(long column)>& local);
  ~GraphHandles();  // unregisters: waits for the tasks using them, brings the data home
  GraphHandles(const GraphHandles&) = delete;
  GraphHandles& operator=(const GraphHandles&) = delete;

  const taskbench::TaskGraph& graph() const { return buffers_.graph(); }
  starpu_data_handle_t output(long t, long i) const { return outputs_[(t % fields_) * width_ + i]; }
  starpu_data_handle_t scratch(long i) const { return scratch_.empty() ? nullptr : scratch_[i]; }

  // The data of task (t, i) in the order its codelet reads them: output, scratch if the kernel
  // has one, then the producers in task_dependencies order. Returns how many were written.
  size_t describe(long t, long i, std::vector<taskbench::Interval>& deps,
                  std::vector<starpu_data_descr>& data) const;

  // Every handle with its column, in the same order on every process (StarPU-MPI tags them).
  void for_each(const std::function<void(starpu_data_handle_t, long column)>& f) const;

 private:
  const taskbench::PointBuffers& buffers_;
  int fields_;
  long width_;
  std::vector<starpu_data_handle_t> outputs_, scratch_;
};

}  // namespace taskbench_starpu
