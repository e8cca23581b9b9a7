#include "offload_tasks.h"

#include <algorithm>
#include <cstring>

using taskbench::gpu::check;

namespace {

char* pinned(size_t bytes) {
  void* p = nullptr;
  if (bytes == 0) return nullptr;
  check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  std::memset(p, 0, bytes);
  return static_cast<char*>(p);
}

}  // namespace

OffloadTasks::OffloadTasks(const taskbench::TaskGraph& g)
    : graph_(g), launcher_(g), stride_(taskbench::gpu::slot_bytes(g)), output_bytes_(g.output_bytes()),
      scratch_bytes_(g.scratch_bytes()), intervals_(std::max(1L, g.max_intervals())) {
  const size_t max_inputs = static_cast<size_t>(std::max(1L, g.max_dependencies()));
  device_inputs_ = taskbench::gpu::device_alloc(max_inputs * stride_, "inputs");
  device_output_ = taskbench::gpu::device_alloc(stride_, "output");
  device_scratch_ = taskbench::gpu::device_alloc(scratch_bytes_, "scratch");
  host_inputs_ = pinned(max_inputs * stride_);
  host_output_ = pinned(stride_);
  // One scratch buffer per rank and graph, as the original's (zeroed: the core's preparation).
  host_scratch_ = pinned(scratch_bytes_);
  inputs_.reserve(max_inputs);
}

OffloadTasks::~OffloadTasks() {
  for (char* p : {device_inputs_, device_output_, device_scratch_}) cudaFree(p);
  for (char* p : {host_inputs_, host_output_, host_scratch_}) cudaFreeHost(p);
}

void OffloadTasks::run(cudaStream_t stream, long t, const taskbench_mpi::StepPlan& plan,
                       const taskbench_mpi::TaskPlan& task) {
  // The inputs, in task_dependencies order (the plan's slot order), each in a slot of its own.
  inputs_.clear();
  const long n = graph_.task_dependencies(t, task.point, intervals_.data());
  for (long d = 0; d < n; ++d)
    for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) {
      const size_t k = inputs_.size();
      std::memcpy(host_inputs_ + k * stride_, plan.inputs[task.inputs_begin + k], output_bytes_);
      inputs_.push_back({device_inputs_ + k * stride_, j});
    }
  if (!inputs_.empty())
    check(cudaMemcpyAsync(device_inputs_, host_inputs_, inputs_.size() * stride_, cudaMemcpyHostToDevice, stream),
          "copying a task's inputs to the GPU");
  if (scratch_bytes_ > 0)
    check(cudaMemcpyAsync(device_scratch_, host_scratch_, scratch_bytes_, cudaMemcpyHostToDevice, stream),
          "copying the scratch buffer to the GPU");
  if (!inputs_.empty() || scratch_bytes_ > 0)
    check(cudaStreamSynchronize(stream), "copying a task's data to the GPU");

  launcher_.launch(stream, t, task.point, device_output_, device_scratch_, inputs_.data(),
                   static_cast<long>(inputs_.size()));
  check(cudaStreamSynchronize(stream), "running a task");

  check(cudaMemcpyAsync(host_output_, device_output_, output_bytes_, cudaMemcpyDeviceToHost, stream),
        "copying a task's output from the GPU");
  if (scratch_bytes_ > 0)
    check(cudaMemcpyAsync(host_scratch_, device_scratch_, scratch_bytes_, cudaMemcpyDeviceToHost, stream),
          "copying the scratch buffer from the GPU");
  check(cudaStreamSynchronize(stream), "copying a task's data from the GPU");
  std::memcpy(task.output, host_output_, output_bytes_);
}
