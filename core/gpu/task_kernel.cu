// The task kernel: one warp per task (task_body.h's run_task), its inputs carried in the launch.
#include <cuda_runtime.h>

#include "task_kernel.h"

namespace taskbench::gpu {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kAllLanes = 0xffffffffu;

__device__ Failure g_failure;  // the run's first failed check
__device__ int* g_failure_seen;  // host-mapped: set with g_failure, polled by the host (device.cc)
__device__ double g_sink;        // keeps kernel results observable
int* failure_seen_on_host = nullptr;  // the same word, as the host reads it

// What run_task needs of a warp, on the GPU.
struct DeviceWarp {
  unsigned long long* executed;

  __device__ bool stopped() const {
    // Lane 0 reads, all lanes get its answer: lanes that disagreed would split the warp's
    // shuffles below.
    const int failed = threadIdx.x == 0 ? *static_cast<volatile int*>(&g_failure.failed) : 0;
    return __shfl_sync(kAllLanes, failed, 0) != 0;
  }
  __device__ long min(long v) const {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v = ::min(v, __shfl_xor_sync(kAllLanes, v, offset));
    return v;
  }
  __device__ double sum(double v) const {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kAllLanes, v, offset);
    return v;
  }
  __device__ void sync() const { __syncwarp(); }
  __device__ void fail(const GraphDesc& g, long t, long i, int what, long input, long want_point, long found_t,
                       long found_i, long byte) const {
    if (atomicCAS(&g_failure.failed, 0, 1) != 0) return;  // a failure is on record already
    g_failure = Failure{1, what, g.graph, t, i, input, want_point, found_t, found_i, byte};
    __threadfence();
    if (g_failure_seen != nullptr) {
      *static_cast<volatile int*>(g_failure_seen) = 1;
      __threadfence_system();
    }
  }
  __device__ void hang() const {
    for (;;) __nanosleep(1000000);
  }
  __device__ void keep(double value) const {
    if (value == 1.0) g_sink = value;  // never true; the compiler cannot know it
  }
  __device__ void count() const { atomicAdd(executed, 1ULL); }
};

template <int Capacity>
__global__ void __launch_bounds__(kWarp) task_kernel(const TaskArgs<Capacity> a) {
  DeviceWarp warp{a.executed};
  const long t = a.t + (a.row_base != nullptr ? *a.row_base : 0);
  run_task<kWarp>(a.graph, t, a.i, a.inputs, a.n_inputs, a.output, a.scratch, static_cast<int>(threadIdx.x), warp);
}

template <int Capacity>
cudaError_t launch_with(cudaStream_t stream, const TaskArgs<Capacity>& args) {
  task_kernel<Capacity><<<1, kWarp, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_task(cudaStream_t stream, const TaskCommon& common, const Input* inputs, long n) {
  // The smallest launch that holds the inputs: parameters are copied at every launch.
  auto fill = [&](auto& args) {
    static_cast<TaskCommon&>(args) = common;
    args.n_inputs = n;
    for (long k = 0; k < n; ++k) args.inputs[k] = inputs[k];
  };
  if (n <= 4) {
    TaskArgs<4> args;
    fill(args);
    return launch_with(stream, args);
  }
  if (n <= 32) {
    TaskArgs<32> args;
    fill(args);
    return launch_with(stream, args);
  }
  if (n <= 256) {
    TaskArgs<256> args;
    fill(args);
    return launch_with(stream, args);
  }
  TaskArgs<kMaxInputs> args;
  fill(args);
  return launch_with(stream, args);
}

cudaError_t load_kernels() {
  // CUDA loads a kernel at its first launch (lazy loading): here, outside any timed region.
  cudaFuncAttributes attributes;
  for (cudaError_t status : {cudaFuncGetAttributes(&attributes, task_kernel<4>),
                             cudaFuncGetAttributes(&attributes, task_kernel<32>),
                             cudaFuncGetAttributes(&attributes, task_kernel<256>),
                             cudaFuncGetAttributes(&attributes, task_kernel<kMaxInputs>)})
    if (status != cudaSuccess) return status;
  // The word the host polls while it issues (failure_seen): pinned, mapped into the device.
  if (failure_seen_on_host != nullptr) return cudaSuccess;
  void* word = nullptr;
  if (cudaError_t status = cudaHostAlloc(&word, sizeof(int), cudaHostAllocMapped); status != cudaSuccess)
    return status;
  *static_cast<volatile int*>(word) = 0;
  void* on_device = nullptr;
  if (cudaError_t status = cudaHostGetDevicePointer(&on_device, word, 0); status != cudaSuccess) return status;
  if (cudaError_t status = cudaMemcpyToSymbol(g_failure_seen, &on_device, sizeof on_device); status != cudaSuccess)
    return status;
  failure_seen_on_host = static_cast<int*>(word);
  return cudaSuccess;
}

bool failure_seen() {
  return failure_seen_on_host != nullptr && *static_cast<volatile int*>(failure_seen_on_host) != 0;
}

cudaError_t read_failure(Failure* failure) {
  return cudaMemcpyFromSymbol(failure, g_failure, sizeof *failure);
}

}  // namespace taskbench::gpu
