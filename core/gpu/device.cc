// The host side of the core's GPU tasks: devices, buffers, launches, the end-of-run checks.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../src/fault.h"
#include "../src/thread_state.h"
#include "../src/validate.h"
#include "task_kernel.h"
#include "taskbench/gpu.h"

namespace taskbench::gpu {
namespace {

constexpr int kMissingEngineExitCode = 4;  // as the Python systems without their engine
constexpr int kUsageExitCode = 2;

[[noreturn]] void fail_line(int status, const std::string& line) {
  std::fflush(stdout);
  std::fprintf(stderr, "taskbench: %s\n", line.c_str());
  std::exit(status);
}

const char* const kGpuKernels = "empty, busy_wait, compute_bound, compute_bound2, memory_bound, memory_daxpy";

bool kernel_for(kernel_type_t type, Kernel* out) {
  switch (type) {
    case EMPTY: *out = Kernel::kEmpty; return true;
    case BUSY_WAIT: *out = Kernel::kBusyWait; return true;
    case COMPUTE_BOUND: *out = Kernel::kComputeBound; return true;
    case COMPUTE_BOUND2: *out = Kernel::kComputeBound2; return true;
    case MEMORY_BOUND: *out = Kernel::kMemoryBound; return true;
    case MEMORY_DAXPY: *out = Kernel::kMemoryDaxpy; return true;
    default: return false;
  }
}

// The usage line for a graph the GPU tasks cannot run, or "".
std::string unsupported(const TaskGraph& g) {
  Kernel kernel;
  if (!kernel_for(g.kernel().type, &kernel))
    return std::string("-kernel: invalid value '") + kernel_name(g.kernel().type) +
           "' for a GPU system; expected one of " + kGpuKernels;
  if (g.max_dependencies() > kMaxInputs)
    return "-width/-radix: tasks of " + std::to_string(g.max_dependencies()) +
           " inputs; a GPU task takes at most " + std::to_string(kMaxInputs);
  return "";
}

size_t round_up(size_t bytes) { return (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign; }

// The failed check as the core's validation line (validate.cc's words), exit 3.
[[noreturn]] void report_failure(const Failure& f) {
  task_graph_t g{};
  g.graph_index = f.graph;
  if (f.what == kWrongIdentity)
    validation_failure(g, f.t, f.i, "input %ld: expected the output of (t=%ld, i=%ld), found (t=%ld, i=%ld) "
                       "(checked on the GPU)", f.input, f.t - 1, f.want_point, f.found_t, f.found_i);
  validation_failure(g, f.t, f.i, "input %ld: the output of (t=%ld, i=%ld) is corrupt at byte %ld "
                     "(checked on the GPU)", f.input, f.t - 1, f.want_point, f.byte);
}

void check_failure_record() {
  Failure failure{};
  if (read_failure(&failure) == cudaSuccess && failure.failed) report_failure(failure);
}

std::string build_line;  // note_build's, printed after the report

}  // namespace

std::string require_device(const App& app) {
  for (const TaskGraph& g : app.graphs())
    if (const std::string problem = unsupported(g); !problem.empty()) fail_line(kUsageExitCode, problem);
  // Streams share the device's hardware work queues, 8 by default: a stream per column of a
  // wider graph would serialize behind unrelated columns. 32 is CUDA's most; read when the
  // context is created, so before any other CUDA call (a user's own setting wins).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
    fail_line(kMissingEngineExitCode, std::string("no usable CUDA device: ") + cudaGetErrorString(status));
  if (count == 0) fail_line(kMissingEngineExitCode, "no usable CUDA device: none found");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(load_kernels(), "loading the task kernel");
  return prop.name;
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  // A kernel that failed its checks may have left later tasks with bad inputs, but the
  // first failure is the one to report.
  if (status != cudaErrorIllegalAddress && status != cudaErrorLaunchFailure) check_failure_record();
  fail_line(1, std::string("CUDA error: ") + what + ": " + cudaGetErrorString(status));
}

char* device_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  if (bytes == 0) return nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess)
    fail_line(1, std::string("CUDA error: allocating ") + std::to_string(bytes) + " bytes for " + what +
                     ": " + cudaGetErrorString(status));
  check(cudaMemset(p, 0, bytes), "cudaMemset");
  return static_cast<char*>(p);
}

size_t slot_bytes(const TaskGraph& g) { return round_up(g.output_bytes()); }

DeviceBuffers::DeviceBuffers(const TaskGraph& g, long rows)
    : rows_(rows), width_(g.max_width()), stride_(slot_bytes(g)),
      scratch_stride_(round_up(g.scratch_bytes())) {
  outputs_ = device_alloc(rows_ * width_ * stride_, "outputs");
  scratch_ = device_alloc(width_ * scratch_stride_, "scratch");
}

DeviceBuffers::~DeviceBuffers() {
  cudaFree(outputs_);
  cudaFree(scratch_);
}

DeviceBuffers::DeviceBuffers(DeviceBuffers&& other) noexcept
    : rows_(other.rows_), width_(other.width_), stride_(other.stride_),
      scratch_stride_(other.scratch_stride_), outputs_(other.outputs_), scratch_(other.scratch_) {
  other.outputs_ = other.scratch_ = nullptr;
}

struct TaskLauncher::Desc {
  GraphDesc graph;
};

TaskLauncher::TaskLauncher(const TaskGraph& g) : graph_(g), desc_(new Desc{}) {
  GraphDesc& d = desc_->graph;
  d.graph = g.index();
  if (const std::string problem = unsupported(g); !problem.empty()) fail_line(kUsageExitCode, problem);
  kernel_for(g.kernel().type, &d.kernel);
  d.iterations = g.kernel().iterations;
  d.samples = g.kernel().samples;
  d.output_bytes = g.output_bytes();
  d.scratch_bytes = g.scratch_bytes();
  d.corrupt_t = d.corrupt_i = d.hang_t = d.hang_i = -1;
  const Fault& fault = run_switches.fault;
  if (fault.graph == g.index() && fault.kind == FaultKind::kCorrupt) {
    d.corrupt_t = fault.t;
    d.corrupt_i = fault.i;
  }
  if (fault.graph == g.index() && fault.kind == FaultKind::kHang) {
    d.hang_t = fault.t;
    d.hang_i = fault.i;
  }
  executed_ = reinterpret_cast<unsigned long long*>(device_alloc(sizeof *executed_, "a task counter"));
}

TaskLauncher::~TaskLauncher() {
  delete desc_;
  cudaFree(executed_);
}

TaskLauncher::TaskLauncher(TaskLauncher&& other) noexcept
    : graph_(other.graph_), desc_(other.desc_), executed_(other.executed_) {
  other.desc_ = nullptr;
  other.executed_ = nullptr;
}

void TaskLauncher::launch(cudaStream_t stream, long t, long i, char* output, char* scratch,
                          const Input* inputs, long n_inputs, const long* row_base) const {
  const TaskCommon common{desc_->graph, t, i, row_base, output, scratch, executed_};
  check(launch_task(stream, common, inputs, n_inputs), "launching a task");
}

long long TaskLauncher::executed() const {
  unsigned long long n = 0;
  check(cudaMemcpy(&n, executed_, sizeof n, cudaMemcpyDeviceToHost), "reading the task counter");
  return static_cast<long long>(n);
}

void before_rows(long graph, long first_row, long end_row, long first_column, long end_column) {
  if (failure_seen()) check_failure_record();
  const Fault& fault = run_switches.fault;
  if (fault.kind == FaultKind::kKill && fault.graph == graph && fault.t >= first_row && fault.t < end_row &&
      fault.i >= first_column && fault.i < end_column)
    inject_fault(fault, nullptr);
}

void synchronize() {
  check(cudaDeviceSynchronize(), "running the tasks");
  check_failure_record();
}

void check_last_row(const TaskGraph& g, const DeviceBuffers& buffers, long first_column, long end_column) {
  synchronize();
  const long t = g.timesteps() - 1;
  const long first = std::max(first_column, g.offset(t)), end = std::min(end_column, g.offset(t) + g.width(t));
  if (first >= end) return;
  // The row's slots are contiguous: one copy.
  std::vector<char> host(static_cast<size_t>(end - first) * buffers.stride());
  check(cudaMemcpy(host.data(), buffers.output(t, first), host.size(), cudaMemcpyDeviceToHost),
        "copying the last timestep's outputs");
  for (long i = first; i < end; ++i)
    g.check_unread_output(t, i, host.data() + (i - first) * buffers.stride(), g.output_bytes());
}

std::vector<long long> executed_per_graph(const App& app, const std::vector<const TaskLauncher*>& launchers) {
  synchronize();
  std::vector<long long> executed(app.graphs().size(), 0);
  for (const TaskLauncher* l : launchers) executed[l->graph().index()] += l->executed();
  return executed;
}

void report(const App& app, double elapsed_seconds, const std::vector<const TaskLauncher*>& launchers) {
  app.report(elapsed_seconds, executed_per_graph(app, launchers));
  if (!build_line.empty()) std::printf("%s\n", build_line.c_str());
}

void note_build(App& app, double seconds, long rows, long nodes, long replays) {
  char json[200];
  std::snprintf(json, sizeof json, "{\"seconds\":%.9g,\"rows\":%ld,\"nodes\":%ld,\"replays\":%ld}", seconds,
                rows, nodes, replays);
  app.add_report_json("persistent_graph", json);
  char line[200];
  std::snprintf(line, sizeof line, "Graph Build Time %.6g seconds (outside the timed region: %ld nodes, "
                "windows of %ld rows, %ld replays)", seconds, nodes, rows, replays);
  build_line = line;
}

}  // namespace taskbench::gpu
