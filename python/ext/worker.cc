// State of a worker process (Dask, Ray, a process pool): it runs tasks through Graph.execute
// but never builds an App, so it sets up the core's run switches itself, and its executed-task
// counts travel back to the driver, whose App checks them (App.report(elapsed, counts)).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "fault.h"
#include "thread_state.h"

namespace nb = nanobind;

namespace taskbench_py {
namespace {

// TASKBENCH_FAULT reaches a worker through its environment, as it reaches a C++ system's
// ranks: the fault test then proves that the worker's data path is validated too.
void worker_setup(bool tracing, bool validation_raises) {
  const char* spec = std::getenv("TASKBENCH_FAULT");
  taskbench::Fault fault;
  if (!taskbench::parse_fault(spec, &fault))
    throw nb::value_error((std::string("TASKBENCH_FAULT: invalid value '") + spec + "'; expected " +
                           taskbench::kFaultForms).c_str());
  taskbench::run_switches.fault = fault;
  taskbench::run_switches.tracing = tracing;
  taskbench::run_switches.validation_throws = validation_raises;
}

using Event = std::tuple<long, long, long, double, double>;  // graph, t, i, start, end

// What a worker process did since the last call: tasks per graph, last-timestep outputs it
// checked per graph and, with -trace, their events; zeroed, so the next task's note is its own.
// Only for a process that runs one task at a time (the counts are per thread and not atomic).
std::tuple<std::vector<long long>, std::vector<long long>, std::vector<Event>> take_note(long graphs) {
  std::vector<long long> counts(static_cast<size_t>(graphs), 0), checked(static_cast<size_t>(graphs), 0);
  std::vector<Event> events;
  taskbench::for_each_thread_state([&](taskbench::ThreadState& s) {
    for (size_t g = 0; g < s.executed.size(); ++g) {
      if (g < counts.size()) counts[g] += s.executed[g];
      s.executed[g] = 0;
    }
    for (size_t g = 0; g < s.last_row_checked.size(); ++g) {
      if (g < checked.size()) checked[g] += s.last_row_checked[g];
      s.last_row_checked[g] = 0;
    }
    for (const taskbench::TraceEvent& e : s.trace) events.emplace_back(e.graph, e.t, e.i, e.start, e.end);
    s.trace.clear();
  });
  return {counts, checked, events};
}

// The driver keeps a worker process's trace events in a thread block of their own, so the
// -trace file shows each worker as a thread (the wall clock is the same across processes).
void record_trace(const std::string& worker, const std::vector<Event>& events) {
  static std::mutex lock;
  static std::map<std::string, taskbench::ThreadState*> blocks;
  std::lock_guard<std::mutex> guard(lock);
  taskbench::ThreadState*& block = blocks[worker];
  if (block == nullptr) block = &taskbench::register_thread_state();
  for (const auto& [graph, t, i, start, end] : events) block->trace.push_back({graph, t, i, start, end});
}

std::vector<long long> executed_counts(long graphs) {
  std::vector<long long> counts(static_cast<size_t>(graphs), 0);
  taskbench::for_each_thread_state([&](taskbench::ThreadState& s) {
    for (size_t g = 0; g < counts.size() && g < s.executed.size(); ++g) counts[g] += s.executed[g];
  });
  return counts;
}

}  // namespace

void bind_worker(nb::module_& m) {
  m.def("worker_setup", &worker_setup, nb::arg("tracing") = false, nb::arg("validation_raises") = false,
        "Reads TASKBENCH_FAULT in a worker process (a process that builds no App); tracing: "
        "record each task's events (the driver's -trace); validation_raises: a failed "
        "validation raises ValidationError (its line) instead of ending the process with 3.");
  m.def("tracing", [] { return taskbench::run_switches.tracing; }, "Whether this run records -trace events.");
  m.def("take_note", &take_note, nb::arg("graphs"),
        "(tasks per graph, last-timestep outputs checked per graph, trace events) of this process "
        "since the last call, then zeroed.");
  m.def("record_trace", &record_trace, nb::arg("worker"), nb::arg("events"),
        "Adds a worker process's trace events to this process's -trace file.");
  m.def("executed_counts", &executed_counts, nb::arg("graphs"),
        "Tasks this process executed, per graph index (call while no task runs).");
  m.def("reset_counts", &taskbench::reset_thread_states,
        "Zeroes this process's executed-task counts (a long-lived worker between runs).");
}

}  // namespace taskbench_py
