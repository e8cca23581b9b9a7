// StarPU data handles over one graph's PointBuffers: one handle per output buffer (field,
// column). A task names its own output (W or RW, below) and its producers' outputs (R); StarPU
// infers every dependency from those access modes, as its users write it (sequential
// consistency, on by default).
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
  // `output_mode`: how a task names its own output. STARPU_RW is the original's; STARPU_W orders
  // the same tasks, and StarPU 1.3.10 spends about 4,700 fewer instructions per task on it
  // (README.md), so only the paper's port pays for RW.
  GraphHandles(const taskbench::PointBuffers& buffers, int fields,
               const std::function<bool(long column)>& local, starpu_data_access_mode output_mode);
  ~GraphHandles();  // unregisters: waits for the tasks using them, brings the data home
  GraphHandles(const GraphHandles&) = delete;
  GraphHandles& operator=(const GraphHandles&) = delete;

  const taskbench::TaskGraph& graph() const { return buffers_.graph(); }
  starpu_data_handle_t output(long t, long i) const { return outputs_[(t % fields_) * width_ + i]; }

  // The data of task (t, i) in the order its codelet reads them: its output, then the producers
  // in task_dependencies order. Returns how many were written.
  size_t describe(long t, long i, std::vector<taskbench::Interval>& deps,
                  std::vector<starpu_data_descr>& data) const;

  // Every handle with its column, in the same order on every process (StarPU-MPI tags them).
  void for_each(const std::function<void(starpu_data_handle_t, long column)>& f) const;

 private:
  const taskbench::PointBuffers& buffers_;
  int fields_;
  long width_;
  starpu_data_access_mode output_mode_;
  std::vector<starpu_data_handle_t> outputs_;
};

}  // namespace taskbench_starpu
