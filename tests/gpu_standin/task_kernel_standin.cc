// The stand-in's task kernel: the core's run_task (core/gpu/task_body.h) as one lane on the host,
// in place of task_kernel.cu's warp, queued on the stream as a launch is.
#include <unistd.h>

#include <vector>

#include "../../core/gpu/task_kernel.h"
#include "cuda_standin.h"

namespace taskbench::gpu {
namespace {

Failure failure;   // the run's first failed check
volatile double sink;

struct HostLane {
  unsigned long long* executed;
  long min(long v) const { return v; }
  double sum(double v) const { return v; }
  void sync() const {}
  void fail(const GraphDesc& g, long t, long i, int what, long input, long want_point, long found_t, long found_i,
            long byte) const {
    if (!failure.failed) failure = Failure{1, what, g.graph, t, i, input, want_point, found_t, found_i, byte};
  }
  [[noreturn]] void hang() const {
    for (;;) pause();
  }
  void keep(double value) const { sink = value; }
  void count() const { ++*executed; }
};

}  // namespace

cudaError_t launch_task(cudaStream_t stream, const TaskCommon& common, const Input* inputs, long n) {
  // The launch's parameters are copied when it is issued, as CUDA copies them.
  gpu_standin::launch(stream, [common, in = std::vector<Input>(inputs, inputs + n)] {
    HostLane lane{common.executed};
    const long t = common.t + (common.row_base != nullptr ? *common.row_base : 0);
    run_task<1>(common.graph, t, common.i, in.data(), static_cast<long>(in.size()), common.output, common.scratch,
                0, lane);
  });
  return cudaSuccess;
}

cudaError_t load_kernels() { return cudaSuccess; }

cudaError_t read_failure(Failure* out) {
  *out = failure;
  return cudaSuccess;
}

}  // namespace taskbench::gpu
