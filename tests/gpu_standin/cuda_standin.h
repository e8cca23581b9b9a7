// Between the CUDA runtime stand-in and its task kernel (task_kernel_standin.cc).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace taskbench::gpu_standin {

// Queues a task on the stream, as a kernel launch does.
void launch(cudaStream_t stream, std::function<void()> task);

// TASKBENCH_STANDIN_CALL_LOG: one line for a call the system issued (bytes < 0: none to say).
void log_call(const char* what, long bytes = -1);

}  // namespace taskbench::gpu_standin
