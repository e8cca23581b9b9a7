// taskbench._core: the core's Python binding. Python systems build an App from argv, walk its
// graphs and hand each task's buffers to Graph.execute; the core validates, counts and reports,
// exactly as for the C++ systems.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "taskbench/app.h"

NB_MODULE(_core, m) {
  m.doc() = "taskbench core: task graphs, kernels, validation and the report";
  m.def("wall_time", &taskbench::wall_time, "The core's monotonic clock, in seconds.");
  m.def("available_cores", &taskbench::available_cores, "CPUs this process may run on.");
  taskbench_py::bind_graph(m);
  taskbench_py::bind_app(m);
  taskbench_py::bind_worker(m);
}
