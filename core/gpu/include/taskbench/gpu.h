// taskbench's GPU API (the CUDA component, docs/gpu.md): what execute_point is on the CPU, for
// systems that run tasks on an NVIDIA GPU. A task is one warp: it checks its inputs on the
// device (a failure ends the run with the core's line and exit status 3), runs the kernel with
// the CPU's exact counts and writes its identity. Systems choose streams, events, graphs and
// ranks; they never run a kernel or check an input themselves.
//
//   App app(argc, argv, {TASKBENCH_SYSTEM_NAME});
//   gpu::require_device(app);                   // exit 4 with one line without a usable GPU
//   gpu::TaskLauncher task(g);                  // per graph
//   task.launch(stream, t, i, output, scratch, inputs, n_inputs);
//   gpu::report(app, elapsed, {&task});         // synchronizes, checks, counts, reports
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "taskbench/app.h"

namespace taskbench::gpu {

// The output of task (t - 1, point), in device memory: one input of a task.
struct Input {
  const char* data;
  long point;
};

// The most inputs one task takes on the GPU (its launch carries them; 16 KB of parameters).
constexpr long kMaxInputs = 1024;

// Checks that every graph can run on the GPU (else the core's usage line, exit 2: a kernel
// without a GPU version, too many inputs), then returns the GPU's name, or ends the process with
// one line and exit status 4 (a missing engine) when no CUDA device can be used. Call it after
// App, so -h needs no GPU.
std::string require_device(const App& app);

// Ends the process with one line naming `what` when a CUDA call failed (exit status 1), or with
// a task's failed check when there is one (the core's line, exit status 3).
void check(cudaError_t status, const char* what);

// Device memory for a graph's outputs: a ring of `rows` rows of slots, task (t, i) writing slot
// (t % rows, i), and a scratch buffer per column (zeroed, as the CPU's). Every buffer starts on
// a 256-byte boundary.
class DeviceBuffers {
 public:
  DeviceBuffers(const TaskGraph& g, long rows);
  ~DeviceBuffers();
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  DeviceBuffers(DeviceBuffers&& other) noexcept;

  char* output(long t, long i) const { return outputs_ + ((t % rows_) * width_ + i) * stride_; }
  size_t stride() const { return stride_; }
  char* scratch(long i) const { return scratch_ == nullptr ? nullptr : scratch_ + i * scratch_stride_; }
  long rows() const { return rows_; }

 private:
  long rows_ = 0, width_ = 0;
  size_t stride_ = 0, scratch_stride_ = 0;
  char* outputs_ = nullptr;
  char* scratch_ = nullptr;
};

// Size of one output slot in device memory: the output, rounded up to 256 bytes.
size_t slot_bytes(const TaskGraph& g);
// cudaMalloc of a zeroed buffer, or the one-line exit.
char* device_alloc(size_t bytes, const char* what);

// The core's task on the GPU for one graph. Construction ends the process with the core's usage
// line (exit 2) for a kernel that has no GPU version or a task with more than kMaxInputs inputs.
class TaskLauncher {
 public:
  explicit TaskLauncher(const TaskGraph& g);
  ~TaskLauncher();
  TaskLauncher(const TaskLauncher&) = delete;
  TaskLauncher& operator=(const TaskLauncher&) = delete;
  TaskLauncher(TaskLauncher&& other) noexcept;

  const TaskGraph& graph() const { return graph_; }
  // Launches task (t, i) on `stream`; inputs in task_dependencies order. With `row_base`, the
  // task's timestep is t + *row_base, read on the device when it runs: a captured window of
  // rows replayed at other rows (systems/cuda_graph).
  void launch(cudaStream_t stream, long t, long i, char* output, char* scratch,
              const Input* inputs, long n_inputs, const long* row_base = nullptr) const;
  // Tasks that passed their checks and ran, after a synchronize.
  long long executed() const;

 private:
  TaskGraph graph_;
  struct Desc;
  Desc* desc_ = nullptr;
  unsigned long long* executed_ = nullptr;  // device counter
};

// Call before issuing rows [first_row, end_row) of `graph`. A check that failed on the device
// since ends the process here, with its line and exit status 3: the run stops at its first
// failed check, not at the next synchronize (the tasks still queued end at once on the device).
// And TASKBENCH_FAULT=kill:GRAPH,T,I: a GPU task cannot end its process, so the process that
// issues it does, before launching its rows. (corrupt and hang act on the device: the task
// corrupts its output, or never finishes.)
// An MPI rank passes its columns [first_column, end_column): only the owner of the point acts.
void before_rows(long graph, long first_row, long end_row, long first_column = 0,
                 long end_column = 1L << 62);

// After the run: synchronizes, copies the outputs of the graph's last timestep in columns
// [first_column, end_column) to the host and hands each to the core's check
// (TaskGraph::check_unread_output), which the report requires.
void check_last_row(const TaskGraph& g, const DeviceBuffers& buffers, long first_column = 0,
                    long end_column = 1L << 62);

// Synchronizes the device, then ends the process with the core's line (exit 3) if a task's check
// failed, else reports the run with the tasks the launchers counted.
void report(const App& app, double elapsed_seconds, const std::vector<const TaskLauncher*>& launchers);

// Synchronizes (as `synchronize`), then the tasks the launchers counted, per graph of the app.
std::vector<long long> executed_per_graph(const App& app, const std::vector<const TaskLauncher*>& launchers);

// Waits for the device to finish everything launched; a CUDA error or a failed check ends the
// process as `check` does.
void synchronize();

// Appends a "Graph Build Time ..." line after the report, and the persistent_graph member of the
// report's system_report, for systems that build a graph before timing (as the CPU's native).
void note_build(App& app, double seconds, long rows, long nodes, long replays);

}  // namespace taskbench::gpu
