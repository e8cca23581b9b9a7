// mpi_cuda_resident (a design of ours, not the paper's offload: offload_tasks.h): one graph as
// one MPI rank runs it on the GPU, its block of columns (the MPI family's Layout), a ring of two
// rows of outputs on the device and its mirror in pinned host memory, messages through the host.
// One step (a row) is bulk-synchronous:
//   1. messages: the rank receives the row t - 1 outputs it reads from other ranks, and sends
//      its own to the ranks that read them (into and from the host mirror);
//   2. host to device: the received outputs only (the rank's own never left the device);
//   3. the rank's tasks of row t, one warp each, side by side over a few streams;
//   4. device to host: the outputs another rank reads.
// Every step ends with its copies done, so the ring's two rows never hold data still in use.
#pragma once

#include <mpi.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "layout.h"
#include "taskbench/gpu.h"

class GpuRankGraph {
 public:
  GpuRankGraph(const taskbench::TaskGraph& g, int rank, int ranks);
  ~GpuRankGraph();
  GpuRankGraph(const GpuRankGraph&) = delete;
  GpuRankGraph& operator=(const GpuRankGraph&) = delete;

  const taskbench::gpu::TaskLauncher& launcher() const { return launcher_; }
  long first_column() const { return first_; }
  long end_column() const { return end_; }
  void step(long t);
  // After the run: this rank's outputs of the last timestep, from the device, to the core's check.
  void check_last_row() const { taskbench::gpu::check_last_row(graph_, device_, first_, end_); }

 private:
  char* host(long t, long j) const { return host_ + ((t % 2) * width_ + j) * stride_; }
  void exchange(long t);
  // Copies row r's slots [from, to) between host and device on the copy stream.
  void copy(long r, long from, long to, cudaMemcpyKind kind);

  taskbench::TaskGraph graph_;
  int rank_;
  taskbench_mpi::Layout layout_;
  long first_, end_, width_;
  size_t stride_;
  taskbench::gpu::TaskLauncher launcher_;
  taskbench::gpu::DeviceBuffers device_;
  char* host_ = nullptr;  // pinned: 2 rows x width slots, as the device ring
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<cudaStream_t> streams_;  // streams_[0] also copies
  std::vector<cudaEvent_t> events_;
  std::vector<MPI_Request> requests_;
  std::vector<taskbench::Interval> intervals_;
  std::vector<taskbench::gpu::Input> inputs_;
  std::vector<char> requested_;  // per column: a receive is posted for it this step
};
