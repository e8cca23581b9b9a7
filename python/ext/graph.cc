// Graph: a task graph (a value) with its queries, and execute(), which runs one task on
// buffers that Python owns. Pickles as its fields, so worker processes receive it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "bindings.h"
#include "buffers.h"
#include "taskbench/point_buffers.h"
#include "taskbench/task_graph.h"
#include "taskbench/worker.h"  // ValidationFailure

namespace nb = nanobind;
using taskbench::Interval;
using taskbench::TaskGraph;

namespace taskbench_py {
namespace {

// The points of row t-1 (or t+1) in a list of intervals, ascending: the order execute()
// expects its inputs in.
std::vector<long> points(const std::vector<Interval>& intervals, long n) {
  std::vector<long> out;
  for (long k = 0; k < n; ++k)
    for (long j = intervals[k].start; j <= intervals[k].end; ++j) out.push_back(j);
  return out;
}

std::vector<long> dependencies(const TaskGraph& g, long t, long i) {
  std::vector<Interval> intervals(g.max_intervals());
  return points(intervals, g.task_dependencies(t, i, intervals.data()));
}

std::vector<long> successors(const TaskGraph& g, long t, long i) {
  std::vector<Interval> intervals(g.max_intervals());
  return points(intervals, g.task_successors(t, i, intervals.data()));
}

// An empty kernel runs for tens of nanoseconds: releasing the GIL around it would cost more
// than the task, and hand the GIL to another thread in the middle of every task.
bool releases_gil(const TaskGraph& g) { return g.kernel().type != EMPTY; }

void execute(const TaskGraph& g, long t, long i, nb::handle output, nb::handle inputs) {
  Borrowed out;
  if (!out.acquire(output.ptr(), true)) throw nb::python_error();
  BorrowedList in;
  if (!in.acquire(inputs.ptr())) throw nb::python_error();
  // No scratch buffer: kernels that need one use the calling thread's (the core's fallback).
  if (releases_gil(g)) {
    nb::gil_scoped_release unlocked;
    g.execute_point(t, i, out.data(), out.size(), in.pointers(), in.sizes(), in.count(), nullptr, 0);
  } else {
    g.execute_point(t, i, out.data(), out.size(), in.pointers(), in.sizes(), in.count(), nullptr, 0);
  }
}

void check_unread_output(const TaskGraph& g, long t, long i, nb::handle output) {
  Borrowed out;
  if (!out.acquire(output.ptr(), false)) throw nb::python_error();
  g.check_unread_output(t, i, out.data(), out.size());
}

// Fields of task_graph_t, in declaration order, then the graph's -seed (which the core keeps
// beside it, per graph_index): what a worker process needs to rebuild it.
using GraphState = std::tuple<long, long, long, int, long, long, double, int, long, int, double,
                              size_t, size_t, int, unsigned long>;

GraphState state_of(const TaskGraph& graph) {
  const task_graph_t& g = graph.raw();
  return {g.graph_index, g.timesteps, g.max_width, static_cast<int>(g.dependence), g.radix,
          g.period, g.fraction_connected, static_cast<int>(g.kernel.type), g.kernel.iterations,
          g.kernel.samples, g.kernel.imbalance, g.output_bytes_per_task,
          g.scratch_bytes_per_task, g.nb_fields, taskbench_graph_seed(g.graph_index)};
}

task_graph_t graph_of(const GraphState& s) {
  task_graph_t g{};
  g.graph_index = std::get<0>(s);
  g.timesteps = std::get<1>(s);
  g.max_width = std::get<2>(s);
  g.dependence = static_cast<dependence_type_t>(std::get<3>(s));
  g.radix = std::get<4>(s);
  g.period = std::get<5>(s);
  g.fraction_connected = std::get<6>(s);
  g.kernel.type = static_cast<kernel_type_t>(std::get<7>(s));
  g.kernel.iterations = std::get<8>(s);
  g.kernel.samples = std::get<9>(s);
  g.kernel.imbalance = std::get<10>(s);
  g.output_bytes_per_task = std::get<11>(s);
  g.scratch_bytes_per_task = std::get<12>(s);
  g.nb_fields = std::get<13>(s);
  // A worker rebuilding the driver's graph takes its seed too (a no-op where it is already set).
  taskbench_set_graph_seed(g.graph_index, std::get<14>(s));
  return g;
}

}  // namespace

void bind_graph(nb::module_& m) {
  // A failed validation in a worker set up with validation_raises (worker.cc): the task's
  // error, its message the core's one line, for the engine to carry to the driver.
  nb::exception<taskbench::ValidationFailure>(m, "ValidationError");
  nb::class_<TaskGraph>(m, "Graph", "One task graph of the run (docs/spec.md §1).")
      .def_prop_ro("index", &TaskGraph::index)
      .def_prop_ro("timesteps", &TaskGraph::timesteps)
      .def_prop_ro("max_width", &TaskGraph::max_width)
      .def_prop_ro("output_bytes", &TaskGraph::output_bytes)
      .def_prop_ro("scratch_bytes", &TaskGraph::scratch_bytes)
      .def_prop_ro("max_dependencies", &TaskGraph::max_dependencies)
      .def_prop_ro("pattern", [](const TaskGraph& g) { return std::string(taskbench::pattern_name(g.pattern())); })
      .def_prop_ro("kernel", [](const TaskGraph& g) { return std::string(taskbench::kernel_name(g.kernel().type)); })
      .def("offset", &TaskGraph::offset, nb::arg("t"), "First point of row t.")
      .def("width", &TaskGraph::width, nb::arg("t"), "Number of points of row t.")
      .def("contains", &TaskGraph::contains, nb::arg("t"), nb::arg("i"))
      .def("dependencies", &dependencies, nb::arg("t"), nb::arg("i"),
           "Points of row t-1 whose outputs task (t, i) reads, ascending (execute()'s input order).")
      .def("successors", &successors, nb::arg("t"), nb::arg("i"),
           "Points of row t+1 that read the output of task (t, i), ascending.")
      .def("execute", &execute, nb::arg("t"), nb::arg("i"), nb::arg("output"), nb::arg("inputs"),
           "Runs task (t, i): validates the inputs (a list of buffers, in dependencies() order; "
           "a mismatch ends the process with status 3), runs the kernel with the GIL released, "
           "and writes the task's identity into output (a writable buffer of output_bytes).")
      .def("check_unread_output", &check_unread_output, nb::arg("t"), nb::arg("i"), nb::arg("output"),
           "Checks the output of task (t, i) that no task read (every output of the last timestep, "
           "after the run; a buffer): a mismatch ends the process with status 3 (or raises "
           "ValidationError in a worker set up with validation_raises). The report requires each "
           "last-timestep output to have been checked once.")
      .def("describe", &TaskGraph::describe)
      .def("__getstate__", &state_of)
      .def("__setstate__", [](TaskGraph& g, const GraphState& s) { new (&g) TaskGraph(graph_of(s)); });

  // PointBuffers for one graph: outputs and scratch that the core owns and gathers itself,
  // for systems that run every task in this process (python_serial): one call per task.
  nb::class_<taskbench::PointBuffers>(m, "PointBuffers",
                                      "Two output buffers per column and scratch, owned by the core.")
      .def(nb::init<const TaskGraph&>(), nb::arg("graph"))
      .def("run",
           [](const taskbench::PointBuffers& b, long t, long i) {
             if (releases_gil(b.graph())) {
               nb::gil_scoped_release unlocked;
               b.run(t, i);
             } else {
               b.run(t, i);
             }
           },
           nb::arg("t"), nb::arg("i"), "Runs task (t, i) on the buffers of rows t-1 and t.")
      .def("check_last_row", &taskbench::PointBuffers::check_last_row,
           "Checks every output of the graph's last timestep (after the run).");
}

}  // namespace taskbench_py
