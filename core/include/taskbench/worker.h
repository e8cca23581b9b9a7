// taskbench C++ API for a worker: a process or library that runs tasks through the core
// (TaskGraph::execute_point) but builds no App, such as an engine's worker process (Dask, Ray,
// Spark, a process pool) or an operator library with its own copy of the core (TensorFlow).
// Its counts and trace events travel to the driver, whose App checks and reports them.
//   taskbench::worker::setup({.tracing = tracing});  // once, before the first task
//   ... run tasks ...
//   taskbench::worker::Note note = taskbench::worker::take_note(graphs);  // to the driver
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace taskbench {

// One task's span on the core's wall clock (-trace).
struct TraceEvent {
  long graph, t, i;
  double start, end;
};

// What a failed validation throws in a worker set up with validation_throws: its one line.
// Otherwise a failed validation prints the line and ends the process with status 3.
class ValidationFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace worker {

struct Options {
  bool tracing = false;  // record each task's trace event (the driver runs with -trace)
  // Throw ValidationFailure instead of exiting: for an engine that cannot see its workers'
  // exit statuses (Ray's workers are its raylet's children) and reports the task's error.
  bool validation_throws = false;
};

// Sets up this process's copy of the core: reads TASKBENCH_FAULT from the environment (so a
// fault test proves the worker's data path is validated too) and applies the options. Throws
// std::invalid_argument with one line for a malformed TASKBENCH_FAULT.
void setup(const Options& options);

// Whether setup asked for trace events.
bool tracing();

// What this process did since the previous take_note, per graph index (below `graphs`):
// tasks executed, last-timestep outputs checked and, when tracing, trace events. Zeroes them.
// Only for a process that runs one task at a time (the per-thread counts are not atomic).
struct Note {
  std::vector<long long> executed, last_row_checked;
  std::vector<TraceEvent> events;
};
Note take_note(long graphs);

// Tasks this process executed per graph index, without zeroing (call while no task runs).
std::vector<long long> executed_counts(long graphs);

// Zeroes this process's counts and events (a long-lived worker between runs).
void reset();

// On the driver: adds a worker's trace events to this process's -trace file, as one thread
// per worker name (the wall clock is the same across the processes of one machine).
void record_trace(const std::string& worker, const std::vector<TraceEvent>& events);

}  // namespace worker
}  // namespace taskbench
