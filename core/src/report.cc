#include "report.h"

#include <cstdio>
#include <ctime>

#include "json.h"
#include "kernels/kernels.h"
#include "machine.h"

#ifndef TASKBENCH_BUILD_TYPE
#define TASKBENCH_BUILD_TYPE "unknown"
#endif
#ifndef TASKBENCH_BUILD_FLAGS
#define TASKBENCH_BUILD_FLAGS ""
#endif
#ifndef TASKBENCH_VERSION
#define TASKBENCH_VERSION "0"
#endif

namespace taskbench {
namespace {

double per_second(long long amount, double seconds) {
  return seconds > 0 ? static_cast<double>(amount) / seconds : 0.0;
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

}  // namespace

void print_summary(const ReportInput& in) {
  const GraphTotals& s = in.totals->sum;
  std::printf("Total Tasks %lld\n", s.tasks);
  std::printf("Total Dependencies %lld\n", s.dependencies);
  if (in.totals->local_estimated) {
    std::printf("  Local Dependencies %lld (estimated)\n", s.local_dependencies);
    std::printf("  Nonlocal Dependencies %lld (estimated)\n", s.dependencies - s.local_dependencies);
    std::printf("  Number of Nodes (used for estimate) %ld\n", in.nodes);
  } else {
    std::printf("  Unable to estimate local/nonlocal dependencies\n");
  }
  std::printf("Total FLOPs %lld\n", s.flops);
  std::printf("Total Bytes %lld\n", s.bytes);
  std::printf("Elapsed Time %e seconds\n", in.elapsed_seconds);
  std::printf("FLOP/s %e\n", per_second(s.flops, in.elapsed_seconds));
  std::printf("B/s %e\n", per_second(s.bytes, in.elapsed_seconds));
  std::fflush(stdout);
}

std::string report_json(const ReportInput& in) {
  const GraphTotals& s = in.totals->sum;
  const long cores = in.ranks * in.threads_per_rank;
  JsonWriter j;
  j.begin_object().field("schema", "taskbench-report").field("schema_version", kReportSchemaVersion);
  j.key("system").begin_object()
      .field("name", in.options->system)
      .field("version", in.options->version.empty() ? std::string(TASKBENCH_VERSION) : in.options->version)
      .field("compiler", in.options->compiler)
      .end_object();
  j.key("taskbench").begin_object()
      .field("version", TASKBENCH_VERSION)
      .field("core_compiler", TASKBENCH_COMPILER_STRING)
      .field("build_type", TASKBENCH_BUILD_TYPE)
      .field("build_flags", TASKBENCH_BUILD_FLAGS)
      .field("blas", kernels::blas_runtime())
      .end_object();
  j.key("command").begin_array();
  for (const std::string& a : *in.command) j.value(a);
  j.end_array();
  j.key("graphs").begin_array();
  for (size_t k = 0; k < in.graphs->size(); ++k) {
    const task_graph_t& g = (*in.graphs)[k].raw();
    const GraphTotals& gt = in.totals->graphs[k];
    j.begin_object()
        .field("index", g.graph_index)
        .field("pattern", pattern_name(g.dependence))
        .field("timesteps", g.timesteps)
        .field("max_width", g.max_width)
        .field("radix", g.radix)
        .field("period", g.period)
        .field("fraction", g.fraction_connected)
        .key("kernel").begin_object()
        .field("type", kernel_name(g.kernel.type))
        .field("iterations", g.kernel.iterations)
        .field("samples", g.kernel.samples)
        .field("imbalance", g.kernel.imbalance)
        .end_object()
        .field("output_bytes", static_cast<long long>(g.output_bytes_per_task))
        .field("scratch_bytes", static_cast<long long>(g.scratch_bytes_per_task))
        .field("fields", g.nb_fields)
        .field("seed", taskbench_graph_seed(g.graph_index))
        .field("tasks", gt.tasks)
        .field("dependencies", gt.dependencies)
        .field("flops", gt.flops)
        .field("bytes", gt.bytes)
        .end_object();
  }
  j.end_array();
  j.key("totals").begin_object().field("tasks", s.tasks).field("dependencies", s.dependencies);
  if (in.totals->local_estimated)
    j.field("local_dependencies", s.local_dependencies)
        .field("nonlocal_dependencies", s.dependencies - s.local_dependencies);
  else
    j.key("local_dependencies").null().key("nonlocal_dependencies").null();
  j.field("nodes", in.nodes).field("flops", s.flops).field("bytes", s.bytes).end_object();
  j.field("elapsed_seconds", in.elapsed_seconds)
      .field("flops_per_second", per_second(s.flops, in.elapsed_seconds))
      .field("bytes_per_second", per_second(s.bytes, in.elapsed_seconds));
  j.key("parallelism").begin_object()
      .field("ranks", in.ranks)
      .field("threads_per_rank", in.threads_per_rank)
      .field("cores", cores)
      .end_object();
  j.field("task_granularity_seconds",
          s.tasks > 0 ? in.elapsed_seconds * cores / static_cast<double>(s.tasks) : 0.0);
  const MachineInfo m = read_machine_info();
  j.key("machine").begin_object()
      .field("cpu_model", m.cpu_model)
      .field("logical_cpus", m.logical_cpus)
      .field("physical_cores", m.physical_cores)
      .field("available_cpus", m.available_cpus)
      .field("memory_bytes", m.memory_bytes)
      .field("hostname", m.hostname)
      .field("os", m.os_kernel)
      .key("load_average").begin_array().value(m.load_average[0]).value(m.load_average[1])
      .value(m.load_average[2]).end_array()
      .end_object();
  j.key("validation").begin_object()
      .field("task_inputs", "checked")
      .field("last_timestep_outputs", in.last_row_checked ? "checked" : "unchecked")
      .field("every_task_once", true)
      .field("graph_check", in.graph_checked ? "passed" : "skipped")
      .end_object();
  j.key("system_report").begin_object();
  for (const auto& kv : *in.system_report) j.key(kv.first).raw(kv.second);
  j.end_object();
  j.field("timestamp", utc_timestamp());
  j.end_object();
  return j.str() + "\n";
}

}  // namespace taskbench
