// taskbench C++ API: the application a system's main() builds from argv.
//   App app(argc, argv, {"my_system"});
//   double start = taskbench::wall_time();  ... run every graph's tasks ...
//   app.report(taskbench::wall_time() - start);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "taskbench/task_graph.h"

#if defined(__clang__)
#define TASKBENCH_COMPILER_STRING "clang " __clang_version__
#elif defined(__GNUC__)
#define TASKBENCH_COMPILER_STRING "gcc " __VERSION__
#else
#define TASKBENCH_COMPILER_STRING "unknown"
#endif

namespace taskbench {

// A flag a system declares, e.g. {"-worker", "N", "worker threads (default: cores)", 1}.
// An empty value_name makes it a switch. Values outside min_value..max_value are rejected
// while parsing, like every other flag's. A text flag takes any string (an address, a path):
// App::text_flag reads it, and min/max do not apply.
struct SystemFlag {
  std::string name;
  std::string value_name;
  std::string help;
  long min_value = 0;
  long max_value = 1L << 60;
  bool text = false;
};

// The most threads a -worker flag should allow: far more than any machine has cores, and
// beyond it thread creation fails (libgomp and libomp then crash or abort instead of failing
// with a message).
constexpr long kMaxWorkerThreads = 4096;

struct AppOptions {
  std::string system = "unknown";
  std::vector<SystemFlag> flags;
  std::string version;
  // Evaluated where AppOptions is built, i.e. records the system's compiler, not the core's.
  std::string compiler = TASKBENCH_COMPILER_STRING;
  // The report requires every output of each graph's last timestep to have been handed to
  // TaskGraph::check_unread_output once. Off only for ports of the original API (app_create),
  // which has no such call: their report says the outputs were not checked.
  bool checks_last_row = true;
};

class App {
 public:
  // Parses argv; on an invalid flag prints one line and exits with status 2, on -h prints
  // the help and exits 0. Checks every graph's consistency unless -skip-graph-validation.
  App(int argc, char** argv, AppOptions options = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  const std::vector<TaskGraph>& graphs() const;
  long flag(const std::string& name, long default_value) const;  // a system flag's value
  std::string text_flag(const std::string& name, const std::string& default_value) const;
  int verbosity() const;
  long nodes() const;
  const AppOptions& options() const;

  // Prints the configuration (and with -vv every task's dependencies), rank 0 only.
  void display() const;
  // Cores the run uses, for the task granularity in the report (default 1 x 1).
  void set_parallelism(long ranks, long threads_per_rank);
  void set_rank(int rank);
  long long local_executed(long graph_index) const;
  // Outputs of the graph's last timestep this process checked (check_unread_output).
  long long local_last_row_checked(long graph_index) const;
  // Adds a system-specific member (valid JSON text) to the report's "system_report".
  void add_report_json(const std::string& key, const std::string& json_value);
  // For a simulated platform (docs/simulation.md): no task runs its kernel; each hands its
  // exact FLOP count (docs/spec.md §2) to `charge` instead, which charges them to the simulated
  // core. Everything else a task does (validation, its output) still happens. Returns "", or
  // why not (a graph whose kernel's work is not FLOPs: busy_wait, the memory and I/O kernels),
  // for the system to end the run with, as it ends a run (MPI ranks together).
  using FlopCharge = void (*)(double flops);
  std::string charge_kernels_as_flops(FlopCharge charge);

  // Checks every task ran once and every output of each graph's last timestep was checked
  // once, prints the summary lines, writes -json and -trace.
  void report(double elapsed_seconds) const;
  // The same with executed-task totals per graph gathered from all ranks (the last-row checks
  // counted in this process).
  void report(double elapsed_seconds, const std::vector<long long>& executed_per_graph) const;
  // The same with both counts gathered (each rank checks the outputs it holds).
  void report(double elapsed_seconds, const std::vector<long long>& executed_per_graph,
              const std::vector<long long>& last_row_checked_per_graph) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

inline double wall_time() { return taskbench_wall_time(); }

// CPUs this process may run on (its affinity mask).
long available_cores();

}  // namespace taskbench
