// One graph's tasks issued to the GPU as cuda and cuda_graph do: a stream per column, an event
// per task, and the waits the graph's dependencies need. Outputs live in a ring of two rows
// (task (t, i) writes slot (t % 2, i)), so besides its inputs a task also waits for the readers
// of the slot it overwrites (write-after-read): the core's taskbench::Hazards.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "taskbench/gpu.h"
#include "taskbench/hazards.h"

class ColumnStreams {
 public:
  static constexpr long kRingRows = 2;  // taskbench::Hazards' layout

  explicit ColumnStreams(const taskbench::TaskGraph& g);
  ~ColumnStreams();
  ColumnStreams(const ColumnStreams&) = delete;
  ColumnStreams& operator=(const ColumnStreams&) = delete;

  const taskbench::gpu::TaskLauncher& launcher() const { return launcher_; }
  taskbench::gpu::TaskLauncher& launcher() { return launcher_; }
  const taskbench::gpu::DeviceBuffers& buffers() const { return buffers_; }

  // Issues row t. Events recorded before row `window_start` are not waited on: in a captured
  // window they belong to an earlier replay, which has finished before this one starts. With
  // `row_base`, the row is launched as t - window_start + *row_base (a replayable window).
  void issue_row(long t, long window_start = 0, const long* row_base = nullptr);

  // For stream capture: every column stream waits for `origin` (joining its capture), and
  // `origin` waits for every column stream (closing it).
  void fork_from(cudaStream_t origin);
  void join_into(cudaStream_t origin);

 private:
  void wait_for(long i, long row_parity, long k, long window_start);

  taskbench::TaskGraph graph_;
  taskbench::Hazards hazards_;
  taskbench::gpu::TaskLauncher launcher_;
  taskbench::gpu::DeviceBuffers buffers_;
  long width_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;    // [parity][column]: the last task of that parity's row
  std::vector<long> event_row_;        // the row each event was last recorded for, or -1
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaEvent_t> joins_;     // [column], for join_into
  std::vector<taskbench::Interval> deps_;
  std::vector<taskbench::gpu::Input> inputs_;
};
