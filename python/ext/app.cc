// App: the C++ App over a Python argv. Flags, help, graph checks, the summary lines, -json,
// -trace and the exit statuses are the core's own, so a Python system behaves like a C++ one.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "taskbench/app.h"

namespace nb = nanobind;

namespace taskbench_py {
namespace {

// (name, value_name, help, min, max, text): value_name "" makes a switch, text a flag whose
// value is any string (read by text_flag), as in SystemFlag.
using FlagSpec = std::tuple<std::string, std::string, std::string, long, long, bool>;

taskbench::AppOptions options_of(const std::string& system, const std::vector<FlagSpec>& flags,
                                 const std::string& version) {
  taskbench::AppOptions options;
  options.system = system;
  options.version = version;
  for (const auto& [name, value_name, help, lo, hi, text] : flags)
    options.flags.push_back({name, value_name, help, lo, hi, text});
  return options;
}

// On a bad flag or -h the core prints and exits the process, as a C++ system does: Python has
// printed nothing yet, so nothing of its output is lost. argv comes as bytes (os.fsencode):
// a command line need not be UTF-8, and the core must see the bytes the process was given.
void construct(taskbench::App* self, const std::vector<nb::bytes>& argv_bytes, const std::string& system,
               const std::vector<FlagSpec>& flags, const std::string& version) {
  std::vector<std::string> argv;
  for (const nb::bytes& b : argv_bytes) argv.emplace_back(b.c_str(), b.size());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  // The App copies argv; it is neither copyable nor movable, so it is built in place.
  new (self) taskbench::App(static_cast<int>(argv.size()), pointers.data(),
                            options_of(system, flags, version));
}

void report(const taskbench::App& app, double elapsed, const std::optional<std::vector<long long>>& executed,
            const std::optional<std::vector<long long>>& last_row_checked) {
  std::fflush(stdout);
  auto local = [&](auto count) {
    std::vector<long long> counts;
    for (const taskbench::TaskGraph& g : app.graphs()) counts.push_back((app.*count)(g.index()));
    return counts;
  };
  app.report(elapsed, executed ? *executed : local(&taskbench::App::local_executed),
             last_row_checked ? *last_row_checked : local(&taskbench::App::local_last_row_checked));
  std::fflush(stdout);  // before anything Python prints after it
}

}  // namespace

void bind_app(nb::module_& m) {
  nb::class_<taskbench::App>(m, "App", "The run's flags and graphs, and its report (docs/spec.md §4, §5).")
      .def("__init__", &construct, nb::arg("argv"), nb::arg("system"),
           nb::arg("flags") = std::vector<FlagSpec>{},
           nb::arg("version") = "",
           "Parses argv, a list of bytes (argv[0] is the program name). flags: (name, value_name, "
           "help, min, max, text) per system flag, value_name '' for a switch, text True for a "
           "string value.")
      .def_prop_ro("graphs", &taskbench::App::graphs, "The graphs of the run (-and separates them).")
      .def("flag", &taskbench::App::flag, nb::arg("name"), nb::arg("default"),
           "A system flag's value (1 for a given switch), or default when absent.")
      .def("text_flag", &taskbench::App::text_flag, nb::arg("name"), nb::arg("default"),
           "A text system flag's value, or default when absent.")
      .def_prop_ro("verbosity", &taskbench::App::verbosity)
      .def_prop_ro("nodes", &taskbench::App::nodes)
      .def("display",
           [](const taskbench::App& app) {
             app.display();
             std::fflush(stdout);
           },
           "Prints the configuration (every task's dependencies with -vv).")
      .def("set_parallelism", &taskbench::App::set_parallelism, nb::arg("ranks"), nb::arg("threads_per_rank"),
           "Cores the run uses, for the task granularity in the report.")
      .def("add_report_json", &taskbench::App::add_report_json, nb::arg("key"), nb::arg("json_value"),
           "Adds a member (valid JSON text) to the report's system_report.")
      .def("local_executed", &taskbench::App::local_executed, nb::arg("graph_index"),
           "Tasks of a graph that this process executed.")
      .def("report", &report, nb::arg("elapsed_seconds"), nb::arg("executed_per_graph") = nb::none(),
           nb::arg("last_row_checked_per_graph") = nb::none(),
           "Checks every task ran once and every output of each graph's last timestep was checked "
           "once (each count made in this process, or given, gathered from worker processes), "
           "prints the summary, writes -json and -trace. A count that does not match ends the "
           "process with status 3.");
}

}  // namespace taskbench_py
