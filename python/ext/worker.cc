// State of a worker process (Dask, Ray, a process pool): it runs tasks through Graph.execute
// but never builds an App, so it sets up the core's run switches itself, and its executed-task
// counts travel back to the driver, whose App checks them (App.report(elapsed, counts)).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "taskbench/worker.h"

namespace nb = nanobind;

namespace taskbench_py {
namespace {

void setup(bool tracing, bool validation_raises) {
  try {
    taskbench::worker::setup({.tracing = tracing, .validation_throws = validation_raises});
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
}

using Event = std::tuple<long, long, long, double, double>;  // graph, t, i, start, end

std::tuple<std::vector<long long>, std::vector<long long>, std::vector<Event>> take_note(long graphs) {
  taskbench::worker::Note note = taskbench::worker::take_note(graphs);
  std::vector<Event> events;
  events.reserve(note.events.size());
  for (const taskbench::TraceEvent& e : note.events) events.emplace_back(e.graph, e.t, e.i, e.start, e.end);
  return {std::move(note.executed), std::move(note.last_row_checked), std::move(events)};
}

void record_trace(const std::string& worker, const std::vector<Event>& events) {
  std::vector<taskbench::TraceEvent> converted;
  converted.reserve(events.size());
  for (const auto& [graph, t, i, start, end] : events) converted.push_back({graph, t, i, start, end});
  taskbench::worker::record_trace(worker, converted);
}

}  // namespace

void bind_worker(nb::module_& m) {
  m.def("worker_setup", &setup, nb::arg("tracing") = false, nb::arg("validation_raises") = false,
        "Reads TASKBENCH_FAULT in a worker process (a process that builds no App); tracing: "
        "record each task's events (the driver's -trace); validation_raises: a failed "
        "validation raises ValidationError (its line) instead of ending the process with 3.");
  m.def("tracing", &taskbench::worker::tracing, "Whether this run records -trace events.");
  m.def("take_note", &take_note, nb::arg("graphs"),
        "(tasks per graph, last-timestep outputs checked per graph, trace events) of this process "
        "since the last call, then zeroed.");
  m.def("record_trace", &record_trace, nb::arg("worker"), nb::arg("events"),
        "Adds a worker process's trace events to this process's -trace file.");
  m.def("executed_counts", &taskbench::worker::executed_counts, nb::arg("graphs"),
        "Tasks this process executed, per graph index (call while no task runs).");
  m.def("reset_counts", &taskbench::worker::reset,
        "Zeroes this process's executed-task counts (a long-lived worker between runs).");
}

}  // namespace taskbench_py
