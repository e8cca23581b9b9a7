// realm, realm_driver, realm_driver_subgraph: Realm, Legion's low-level runtime (legate's PyPI
// wheel). Every task is a Realm task on a CPU processor (one per core, a block of columns each)
// reading its inputs by pointer from one Realm instance in system memory (storage.h). By
// default the paper's Realm port (shards.cc: a shard task per processor issuing its columns'
// tasks as Subgraphs per window of rows, dependences through phase barriers); with -driver our
// own designs (driver.cc: one thread issues every task, dependences through events). See
// README.md.
#include <realm.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "driver.h"
#include "shards.h"
#include "storage.h"
#include "taskbench/app.h"

using namespace taskbench_realm;

namespace {

// Realm numbers at most 4096 processors per process (their IDs' field), the utility processor
// included: more CPU processors fail an assertion as it starts.
constexpr long kMaxCpuProcessors = 4096 - 1;
constexpr long kPaperFields = 6;  // the paper's row ran the original with -field 6

// Realm's own flags, never the user's: -worker CPU processors and one background worker (they
// share the cores), no GPU, system memory sized to the instance; the driver designs add a
// utility processor, the paper's port has none (its -ll:util 0). Realm's start-up lines (the
// driver's "no device" among them) only with -v.
std::vector<std::string> realm_arguments(const char* program, long workers, bool driver, size_t bytes, int verbosity) {
  std::vector<std::string> args = {program, "-ll:cpu", std::to_string(workers), "-ll:util", driver ? "1" : "0",
                                   "-ll:bgwork", "1", "-ll:gpu", "0", "-ll:csize",
                                   std::to_string(bytes / (1 << 20) + 64)};
  if (verbosity == 0) args.insert(args.end(), {"-level", "6"});
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  const long cores = taskbench::available_cores();
  taskbench::App app(argc, argv,
                     {TASKBENCH_SYSTEM_NAME,
                      {{"-worker", "N", "Realm CPU processors, one thread each (default: the cores)", 1,
                        std::min(taskbench::kMaxWorkerThreads, kMaxCpuProcessors)},
                       {"-fields", "N",
                        "output slots per column of every graph (the original's -field; default 6, the paper's; "
                        "not with -driver)",
                        2, 1L << 20},
                       {"-driver", "", "one driver thread issues every task with merged events (our design)"},
                       {"-subgraph", "", "with -driver: each row shape built once as a Subgraph, instantiated per row"},
                       {"-subgraph-rows", "K", "with -subgraph: K rows per Subgraph, wired inside it (default 1)", 1,
                        1L << 20},
                       {"-subgraph-merge", "", "with -subgraph: the outside preconditions merged once per instance"}},
                      REALM_VERSION});
  const long workers = app.flag("-worker", std::min(cores, kMaxCpuProcessors));
  const bool driver = app.flag("-driver", 0) != 0;
  DriverOptions options;
  options.subgraph = app.flag("-subgraph", 0) != 0;
  options.subgraph_rows = app.flag("-subgraph-rows", 1);
  options.merge = app.flag("-subgraph-merge", 0) != 0;
  if (!options.subgraph && (options.subgraph_rows != 1 || options.merge)) {
    std::fprintf(stderr, "taskbench: -subgraph-rows and -subgraph-merge go with -subgraph\n");
    return 2;
  }
  if (!driver && options.subgraph) {
    std::fprintf(stderr, "taskbench: -subgraph goes with -driver (the paper's port always uses Subgraphs)\n");
    return 2;
  }
  if (driver && app.flag("-fields", 0) != 0) {
    std::fprintf(stderr, "taskbench: -fields goes without -driver (the driver designs keep 2 slots)\n");
    return 2;
  }
  // One slot count for the run, as the original's global -field (the core's -field, per graph,
  // is not read here); the driver designs' hazards assume 2 (taskbench::Hazards).
  const long slots = driver ? 2 : app.flag("-fields", kPaperFields);
  if (!driver)
    for (const taskbench::TaskGraph& g : app.graphs())
      if (!phases_suffice(g.timesteps(), slots)) {
        std::fprintf(stderr, "taskbench: -steps: invalid value '%ld'; more rows than Realm's barrier phases "
                     "hold at -fields %ld\n", g.timesteps(), slots);
        return 2;
      }

  const size_t bytes = storage_bytes(app, slots);
  std::vector<std::string> realm_args = realm_arguments(argv[0], workers, driver, bytes, app.verbosity());
  std::vector<char*> realm_argv;
  for (std::string& a : realm_args) realm_argv.push_back(a.data());
  realm_argv.push_back(nullptr);
  int realm_argc = static_cast<int>(realm_args.size());
  char** realm_argp = realm_argv.data();
  Realm::Runtime runtime;
  if (!runtime.init(&realm_argc, &realm_argp)) fail("Realm did not start (run with -v for its messages)");

  std::vector<Realm::Processor> procs;
  Realm::Machine::ProcessorQuery query(Realm::Machine::get_machine());
  for (Realm::Processor p : query.only_kind(Realm::Processor::LOC_PROC)) procs.push_back(p);
  if (static_cast<long>(procs.size()) != workers)
    fail("-worker " + std::to_string(workers) + ": Realm started " + std::to_string(procs.size()) +
         " CPU processor(s)");
  Realm::Memory sysmem = Realm::Machine::MemoryQuery(Realm::Machine::get_machine())
                             .only_kind(Realm::Memory::SYSTEM_MEM)
                             .has_capacity(bytes)
                             .first();
  if (!sysmem.exists()) fail("no Realm system memory of " + std::to_string(bytes) + " bytes");
  Realm::RegionInstance instance;
  Realm::RegionInstance::create_instance(instance, sysmem, Realm::Rect<1, long long>(0, bytes - 1),
                                         std::vector<size_t>{1}, 0, Realm::ProfilingRequestSet())
      .wait();
  char* base = static_cast<char*>(instance.pointer_untyped(0, bytes));
  if (base == nullptr) fail("the Realm instance in system memory is not directly addressable");
  make_storage(app, slots, base);
  register_point_task();

  app.set_parallelism(1, workers);
  app.display();
  double elapsed = 0, issued = 0;
  size_t subgraphs = 0;
  if (driver) {
    const DriverResult r = run_driver(procs, options);
    elapsed = r.elapsed_seconds;
    issued = r.issue_seconds;
    subgraphs = r.subgraphs;
    if (options.subgraph) {
      app.add_report_json("subgraph_rows", std::to_string(options.subgraph_rows));
      app.add_report_json("subgraph_merge", options.merge ? "true" : "false");
    }
  } else {
    const ShardResult r = run_shards(procs, slots);
    elapsed = r.elapsed_seconds;
    issued = r.issue_seconds;
    subgraphs = r.subgraphs;
    app.add_report_json("realm_shards", std::to_string(procs.size()));
    app.add_report_json("realm_fields", std::to_string(slots));
    app.add_report_json("realm_barriers", std::to_string(r.barriers));
  }
  app.add_report_json("realm_design", driver ? "\"driver\"" : "\"shards\"");
  if (!driver || options.subgraph) app.add_report_json("realm_subgraphs", std::to_string(subgraphs));
  // issue_seconds: until every task was handed to Realm (the driver, or the slowest shard).
  app.add_report_json("issue_seconds", std::to_string(issued));
  check_last_rows();
  app.report(elapsed);

  instance.destroy();
  runtime.shutdown(Realm::Event::NO_EVENT, 0);
  return runtime.wait_for_shutdown();
}
