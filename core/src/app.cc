#include "taskbench/app.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "args.h"
#include "fault.h"
#include "graph_check.h"
#include "graph_seed.h"
#include "report.h"
#include "thread_state.h"
#include "tool_report.h"
#include "totals.h"
#include "trace.h"
#include "validate.h"

namespace taskbench {
namespace {

[[noreturn]] void usage_failure(const std::string& message) {
  std::fprintf(stderr, "taskbench: %s\n", message.c_str());
  std::exit(kUsageExitCode);
}

// TASKBENCH_FAULT (fault.h) makes one task misbehave on purpose: corrupt its output, hang or
// kill its process, so tests can prove that each system's own data path and the harness notice.
// A fault naming a task these graphs do not have is refused: it would never fire.
void install_fault_from_environment(const std::vector<task_graph_t>& graphs) {
  const char* spec = std::getenv("TASKBENCH_FAULT");
  if (!parse_fault(spec, &run_switches.fault))
    usage_failure(std::string("TASKBENCH_FAULT: invalid value '") + spec + "'; expected " +
                  kFaultForms + " (non-negative integers)");
  const std::string problem = fault_target_problem(run_switches.fault, graphs);
  if (!problem.empty()) usage_failure(std::string("TASKBENCH_FAULT=") + spec + ": " + problem);
}

// TASKBENCH_RANK_WATCH=SOCKET (set by the harness for MPI launches): once it knows its rank,
// each process connects to the harness's Unix socket, says "rank R pid P", and keeps the
// connection open until it dies. However it dies, the kernel then closes it, so the harness
// learns which rank went first: MPICH's launcher names only a PID, not always the dead rank's,
// and kills the other ranks within a millisecond. Best effort: never a reason to fail.
void watch_rank(int rank) {
  const char* path = std::getenv("TASKBENCH_RANK_WATCH");
  sockaddr_un address{};
  if (path == nullptr || *path == '\0' || std::strlen(path) >= sizeof(address.sun_path)) return;
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return;
  }
  const std::string hello = "rank " + std::to_string(rank) + " pid " +
                            std::to_string(static_cast<long>(getpid())) + "\n";
  if (send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) < 0) close(fd);
  // Otherwise left open on purpose: its closing is the message.
}

void print_task_list(const TaskGraph& g) {
  std::vector<Interval> deps(g.max_intervals());
  for (long t = 0; t < g.timesteps(); ++t) {
    std::printf("      Timestep %ld (offset %ld, width %ld, dependence set %ld)\n", t, g.offset(t),
                g.width(t), g.dependence_set(t));
    for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
      std::printf("        Point %ld:", i);
      const long n = g.task_dependencies(t, i, deps.data());
      for (long k = 0; k < n; ++k) std::printf(" %ld-%ld", deps[k].start, deps[k].end);
      std::printf("\n");
    }
  }
}

}  // namespace

struct App::Impl {
  AppOptions options;
  Config config;
  std::vector<TaskGraph> graphs;
  std::vector<std::string> command;
  long ranks = 1, threads_per_rank = 1;
  int rank = 0;
  std::vector<std::pair<std::string, std::string>> system_report;
  const void* seeds = nullptr;  // this App's seed table (graph_seed.h)
};

App::App(int argc, char** argv, AppOptions options) : impl_(new Impl) {
  impl_->options = std::move(options);
  for (int a = 0; a < argc; ++a) impl_->command.emplace_back(argv[a]);
  const std::vector<std::string> args(impl_->command.begin() + (argc > 0 ? 1 : 0),
                                      impl_->command.end());
  // A graph without -width is 4 wide on every system, as in the original: one command line,
  // one graph; a system's worker count is its own flag.
  constexpr long default_width = 4;
  try {
    impl_->config = parse_args(args, impl_->options.flags, default_width);
  } catch (const UsageError& e) {
    usage_failure(e.what());
  }
  // Before -h: a line with -h is checked whole (the harness checks a sweep's flags that way),
  // and the fault is part of what the line asks for.
  install_fault_from_environment(impl_->config.graphs);
  if (impl_->config.help) {
    std::fputs(usage_text(argc > 0 ? argv[0] : impl_->options.system, impl_->options.flags).c_str(),
               stdout);
    std::exit(0);
  }
  for (const task_graph_t& g : impl_->config.graphs) impl_->graphs.emplace_back(g);
  impl_->seeds = publish_graph_seeds(impl_->config.seeds);
  // Enough for any sensible thread count; a thread beyond it allocates its own block.
  prepare_thread_states(static_cast<size_t>(std::max(64L, 2 * available_cores())),
                        impl_->graphs.size());
  if (!impl_->config.skip_graph_validation) {
    for (const TaskGraph& g : impl_->graphs) {
      std::string problem = check_graph_consistency(g);
      if (!problem.empty()) {
        std::fprintf(stderr, "taskbench: graph %ld is inconsistent: %s\n", g.index(), problem.c_str());
        std::exit(kValidationExitCode);
      }
    }
  }
  run_switches.tracing = !impl_->config.trace_path.empty();
  reset_thread_states();
}

App::~App() { withdraw_graph_seeds(impl_->seeds); }

const std::vector<TaskGraph>& App::graphs() const { return impl_->graphs; }
int App::verbosity() const { return impl_->config.verbosity; }
long App::nodes() const { return impl_->config.nodes; }
const AppOptions& App::options() const { return impl_->options; }

long App::flag(const std::string& name, long default_value) const {
  auto it = impl_->config.system_values.find(name);
  return it == impl_->config.system_values.end() ? default_value : it->second;
}

std::string App::text_flag(const std::string& name, const std::string& default_value) const {
  auto it = impl_->config.system_texts.find(name);
  return it == impl_->config.system_texts.end() ? default_value : it->second;
}

void App::set_parallelism(long ranks, long threads_per_rank) {
  impl_->ranks = std::max(1L, ranks);
  impl_->threads_per_rank = std::max(1L, threads_per_rank);
}

void App::set_rank(int rank) {
  impl_->rank = rank;
  watch_rank(rank);
}

void App::add_report_json(const std::string& key, const std::string& json_value) {
  impl_->system_report.emplace_back(key, json_value);
}

std::string App::charge_kernels_as_flops(FlopCharge charge) {
  for (const TaskGraph& g : impl_->graphs) {
    const kernel_type_t k = g.kernel().type;
    if (k != EMPTY && k != COMPUTE_BOUND && k != COMPUTE_BOUND2 && k != LOAD_IMBALANCE && k != COMPUTE_DGEMM)
      return std::string("-kernel ") + kernel_name(k) + ": a simulated run charges each task's FLOPs, and " +
             "this kernel's work is not FLOPs (empty, compute_bound, compute_bound2, load_imbalance or " +
             "compute_dgemm)";
  }
  run_switches.charge_flops = charge;
  return "";
}

long long App::local_executed(long graph_index) const {
  long long total = 0;
  for_each_thread_state([&](ThreadState& s) {
    if (graph_index < static_cast<long>(s.executed.size())) total += s.executed[graph_index];
  });
  return total;
}

long long App::local_last_row_checked(long graph_index) const {
  long long total = 0;
  for_each_thread_state([&](ThreadState& s) {
    if (graph_index < static_cast<long>(s.last_row_checked.size())) total += s.last_row_checked[graph_index];
  });
  return total;
}

void App::display() const {
  if (impl_->rank != 0) return;
  std::printf("Running Task Benchmark\n");
  std::printf("  Configuration:\n");
  for (const TaskGraph& g : impl_->graphs) {
    std::printf("    Task Graph %ld:\n", g.index() + 1);
    std::printf("      %s\n", g.describe().c_str());
    if (impl_->config.verbosity >= 2) print_task_list(g);
  }
  std::fflush(stdout);
}

void App::report(double elapsed_seconds) const {
  std::vector<long long> executed;
  for (const TaskGraph& g : impl_->graphs) executed.push_back(local_executed(g.index()));
  report(elapsed_seconds, executed);
}

void App::report(double elapsed_seconds, const std::vector<long long>& executed) const {
  std::vector<long long> checked;
  for (const TaskGraph& g : impl_->graphs) checked.push_back(local_last_row_checked(g.index()));
  report(elapsed_seconds, executed, checked);
}

void App::report(double elapsed_seconds, const std::vector<long long>& executed,
                 const std::vector<long long>& last_row_checked) const {
  const Totals totals = compute_totals(impl_->graphs, impl_->config.nodes);
  if (!impl_->config.trace_path.empty()) {
    std::string path = impl_->config.trace_path, error;
    if (impl_->rank != 0) path += ".rank" + std::to_string(impl_->rank);
    if (!write_trace(path, impl_->rank, &error)) usage_failure("-trace: " + error);
  }
  if (impl_->rank != 0) return;
  for (size_t k = 0; k < impl_->graphs.size(); ++k) {
    const long long ran = k < executed.size() ? executed[k] : 0;
    if (ran != totals.graphs[k].tasks) {
      std::fflush(stdout);
      std::fprintf(stderr, "taskbench: validation failed: graph %zu executed %lld tasks, expected %lld\n",
                   k, ran, totals.graphs[k].tasks);
      std::fflush(stderr);
      _exit(kValidationExitCode);
    }
    const TaskGraph& g = impl_->graphs[k];
    const long long checked = k < last_row_checked.size() ? last_row_checked[k] : 0;
    const long last_row = g.width(g.timesteps() - 1);
    if (impl_->options.checks_last_row && checked != last_row) {
      std::fflush(stdout);
      std::fprintf(stderr, "taskbench: validation failed: graph %zu: %lld outputs of its last timestep "
                   "were checked at the end of the run, expected each of its %ld once "
                   "(TaskGraph::check_unread_output, docs/spec.md §3)\n", k, checked, last_row);
      std::fflush(stderr);
      _exit(kValidationExitCode);
    }
  }
  // Tools loaded through OMP_TOOL_LIBRARIES (e.g. the OMPT breakdown) add their members here:
  // looked up once, now, so a run without a tool pays nothing per task.
  std::vector<std::pair<std::string, std::string>> system_report = impl_->system_report;
  const std::string tool_lines = merge_tool_reports(&system_report);
  const ReportInput in{&impl_->options, &impl_->graphs, &impl_->command, &totals, elapsed_seconds,
                       impl_->config.nodes, impl_->ranks, impl_->threads_per_rank,
                       !impl_->config.skip_graph_validation, impl_->options.checks_last_row,
                       &system_report};
  print_summary(in);
  if (!tool_lines.empty()) {
    std::fputs(tool_lines.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!impl_->config.json_path.empty()) {
    const std::string text = report_json(in);
    std::FILE* f = std::fopen(impl_->config.json_path.c_str(), "w");
    if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0)
      usage_failure("-json: cannot write " + impl_->config.json_path + ": " + std::strerror(errno));
  }
}

std::string TaskGraph::describe() const {
  char buf[512];
  const task_graph_t& g = g_;
  std::snprintf(buf, sizeof buf,
                "%s, %ld steps x %ld wide, radix %ld, period %ld, fraction %g, kernel %s "
                "(iter %ld, samples %d, imbalance %g), output %zu B, scratch %zu B, seed %lu",
                pattern_name(g.dependence), g.timesteps, g.max_width, g.radix, g.period,
                g.fraction_connected, kernel_name(g.kernel.type), g.kernel.iterations,
                g.kernel.samples, g.kernel.imbalance, g.output_bytes_per_task,
                g.scratch_bytes_per_task, taskbench_graph_seed(g.graph_index));
  return buf;
}

}  // namespace taskbench
