// The stand-in's task kernel: the core's run_task (core/gpu/task_body.h) as one lane on the host,
// in place of task_kernel.cu's warp, queued on the stream as a launch is.
// TASKBENCH_STANDIN_TASK_LOG=PATH appends "t i" to PATH for every task that started its work
// (no failure was on record yet): the tests show with it that a failed check stops the tasks
// queued after it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../core/gpu/task_kernel.h"
#include "cuda_standin.h"

namespace taskbench::gpu {
namespace {

Failure failure;   // the run's first failed check
volatile double sink;

struct HostLane {
  unsigned long long* executed;
  bool stopped() const { return failure.failed != 0; }
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

// Written with write(2): a failed check ends the process with _exit, past any stdio buffer.
void log_started(long t, long i) {
  static const int fd = [] {
    const char* path = std::getenv("TASKBENCH_STANDIN_TASK_LOG");
    return path == nullptr ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }();
  if (fd < 0) return;
  char line[48];
  const int n = std::snprintf(line, sizeof line, "%ld %ld\n", t, i);
  if (write(fd, line, static_cast<size_t>(n)) != n) std::abort();
}

}  // namespace

cudaError_t launch_task(cudaStream_t stream, const TaskCommon& common, const Input* inputs, long n) {
  // The launch's parameters are copied when it is issued, as CUDA copies them.
  gpu_standin::launch(stream, [common, in = std::vector<Input>(inputs, inputs + n)] {
    HostLane lane{common.executed};
    const long t = common.t + (common.row_base != nullptr ? *common.row_base : 0);
    if (!failure.failed) log_started(t, common.i);
    run_task<1>(common.graph, t, common.i, in.data(), static_cast<long>(in.size()), common.output, common.scratch,
                0, lane);
  });
  return cudaSuccess;
}

cudaError_t load_kernels() { return cudaSuccess; }

bool failure_seen() { return failure.failed != 0; }

cudaError_t read_failure(Failure* out) {
  *out = failure;
  return cudaSuccess;
}

}  // namespace taskbench::gpu
