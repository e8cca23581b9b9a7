// The parts of the taskbench._core module, each bound in its own file.
#pragma once

#include <nanobind/nanobind.h>

namespace taskbench_py {

void bind_graph(nanobind::module_& m);    // graph.cc: Graph (queries, execute, pickling)
void bind_app(nanobind::module_& m);      // app.cc: App (flags, display, report)
void bind_worker(nanobind::module_& m);   // worker.cc: per-process state of worker processes

}  // namespace taskbench_py
