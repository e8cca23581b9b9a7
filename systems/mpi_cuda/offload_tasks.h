// The paper's MPI+CUDA task (the original's mpi_gpu/nonblock_gpu.cc on its `cuda` branch, whose
// kernel, core/cuda_kernel.cu, offloads each task): one task at a time on the rank's one stream,
//   1. its data copied to the GPU, then a wait for the copy;
//   2. the kernel, then a wait for it;
//   3. its data copied back, then a wait for the copy.
// The original copies the rank's scratch buffer in and out (its tasks' inputs and outputs stay on
// the host, where its core checks them); here the core's GPU task checks its inputs and writes its
// output on the device, so the inputs go in and the output comes back, with the scratch buffer in
// and out as the original's when the kernel has one. Host memory is pinned, as the original's.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "plan.h"
#include "taskbench/gpu.h"

class OffloadTasks {
 public:
  explicit OffloadTasks(const taskbench::TaskGraph& g);
  ~OffloadTasks();
  OffloadTasks(const OffloadTasks&) = delete;
  OffloadTasks& operator=(const OffloadTasks&) = delete;

  const taskbench::gpu::TaskLauncher& launcher() const { return launcher_; }
  // Runs task `task` of step t: its inputs are the plan's slots, filled by the step's exchange;
  // its output lands in the plan's output buffer, where the next steps' exchanges read it.
  void run(cudaStream_t stream, long t, const taskbench_mpi::StepPlan& plan,
           const taskbench_mpi::TaskPlan& task);

 private:
  taskbench::TaskGraph graph_;
  taskbench::gpu::TaskLauncher launcher_;
  size_t stride_, output_bytes_, scratch_bytes_;
  // Device: the task's inputs (a slot each), its output, the scratch. Host (pinned): the same.
  char* device_inputs_ = nullptr;
  char* device_output_ = nullptr;
  char* device_scratch_ = nullptr;
  char* host_inputs_ = nullptr;
  char* host_output_ = nullptr;
  char* host_scratch_ = nullptr;
  std::vector<taskbench::Interval> intervals_;
  std::vector<taskbench::gpu::Input> inputs_;
};
