// Between device.cc (host logic, any C++ compiler) and task_kernel.cu (nvcc): a task's launch
// parameters and the failure record.
#pragma once

#include <cuda_runtime_api.h>

#include "task_body.h"
#include "taskbench/gpu.h"

namespace taskbench::gpu {


struct TaskCommon {
  GraphDesc graph;
  long t, i;
  const long* row_base;
  char* output;
  char* scratch;
  unsigned long long* executed;
};

template <int Capacity>
struct TaskArgs : TaskCommon {
  long n_inputs;
  Input inputs[Capacity];
};

cudaError_t launch_task(cudaStream_t stream, const TaskCommon& common, const Input* inputs, long n);
cudaError_t read_failure(Failure* failure);
cudaError_t load_kernels();
// Whether a task has recorded a failure, without waiting for the device (a host-mapped word the
// failing task sets; the stand-in's queued work runs at synchronization, so there only then).
bool failure_seen();

}  // namespace taskbench::gpu
