// realm: Realm, Legion's low-level runtime (legate's PyPI wheel). Every task is a Realm task
// spawned on a CPU processor (one per core, a block of columns each) with a precondition that
// Realm merges from the completion events it must follow; outputs and scratch live in a Realm
// instance in system memory. With -subgraph (the registry's realm_subgraph), each distinct row
// shape is built once as a Realm Subgraph whose tasks are wired to external preconditions, and
// instantiated per timestep with the row's events. See README.md.
#include <realm.h>
#include <realm/subgraph.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/hazards.h"
#include "taskbench/point_buffers.h"

namespace {

using Realm::Event;
using Realm::Processor;

constexpr Processor::TaskFuncID kPointTask = Processor::TASK_ID_FIRST_AVAILABLE;
constexpr size_t kAlign = 128;  // as PointBuffers: no false sharing between columns
// Realm numbers at most 4096 processors per process (their IDs' field), the utility processor
// included: more CPU processors fail an assertion as it starts.
constexpr long kMaxCpuProcessors = 4096 - 1;

size_t round_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// One graph's storage, carved out of one Realm instance: two output fields per column (task
// (t, i) writes field t mod 2 while row t-1's stays readable) and one scratch buffer per column.
struct GraphData {
  taskbench::TaskGraph graph;
  size_t stride = 0;
  char* outputs = nullptr;
  char* scratch = nullptr;
  char* output(long t, long i) const { return outputs + ((t % 2) * graph.max_width() + i) * stride; }
};

std::vector<GraphData> graph_data;  // filled before any task runs; tasks only read it

struct PointArgs {
  long graph;
  long t;
  long i;
};

void point_task(const void* args, size_t, const void*, size_t, Processor) {
  PointArgs a;
  std::memcpy(&a, args, sizeof a);
  const GraphData& d = graph_data[a.graph];
  thread_local std::vector<taskbench::Interval> deps;
  thread_local std::vector<const char*> inputs;
  thread_local std::vector<size_t> sizes;
  deps.resize(std::max<size_t>(deps.size(), d.graph.max_intervals()));
  inputs.resize(std::max<size_t>(inputs.size(), d.graph.max_dependencies()));
  sizes.resize(inputs.size());
  const long n = d.graph.task_dependencies(a.t, a.i, deps.data());
  size_t k = 0;
  for (long r = 0; r < n; ++r)
    for (long j = deps[r].start; j <= deps[r].end; ++j, ++k) {
      inputs[k] = d.output(a.t - 1, j);
      sizes[k] = d.graph.output_bytes();
    }
  d.graph.execute_point(a.t, a.i, d.output(a.t, a.i), d.graph.output_bytes(), inputs.data(), sizes.data(), k,
                        d.scratch + d.graph.scratch_bytes() * a.i, d.graph.scratch_bytes());
}

// Per graph, the completion event of each column's latest task of each row parity: what
// taskbench::Hazards names is always there, since a task waits only for rows t-1 and t-2. A
// column's last two tasks follow all its earlier ones, so these events end the graph too.
struct LatestTasks {
  std::vector<Event> of_parity[2];
  explicit LatestTasks(long width) {
    for (auto& events : of_parity) events.assign(width, Event::NO_EVENT);
  }
  Event& of(long t, long i) { return of_parity[t % 2][i]; }
  Event all() const {
    std::vector<Event> events(of_parity[0]);
    events.insert(events.end(), of_parity[1].begin(), of_parity[1].end());
    return Event::merge_events(events);
  }
};

// What the driver tracks while it issues every graph's tasks, row by row.
struct Issue {
  std::vector<taskbench::Hazards> hazards;
  std::vector<LatestTasks> latest;
  long steps = 0;  // rows of the longest graph
  Issue() {
    std::vector<taskbench::TaskGraph> shapes;
    for (const GraphData& d : graph_data) {
      shapes.push_back(d.graph);
      hazards.emplace_back(d.graph);
      latest.emplace_back(d.graph.max_width());
    }
    steps = taskbench::max_timesteps(shapes);
  }
  // Triggers once every task issued has run.
  Event end() const {
    std::vector<Event> ends;
    for (const LatestTasks& l : latest) ends.push_back(l.all());
    return Event::merge_events(ends);
  }
};

// Column i's processor: a contiguous block of columns per processor.
Processor processor_of(const std::vector<Processor>& procs, const taskbench::TaskGraph& g, long i) {
  return procs[static_cast<size_t>(i * static_cast<long>(procs.size()) / g.max_width())];
}

// realm: one spawn per task, its precondition merged from the events of the tasks it must wait
// for (taskbench::Hazards: its producers, and what the reuse of its column's buffers needs).
Event spawn_all(const std::vector<Processor>& procs) {
  Issue issue;
  std::vector<Event> pre;
  for (long t = 0; t < issue.steps; ++t)
    for (size_t gi = 0; gi < graph_data.size(); ++gi) {
      const taskbench::TaskGraph& g = graph_data[gi].graph;
      if (t >= g.timesteps()) continue;
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        pre.clear();
        LatestTasks& latest = issue.latest[gi];
        issue.hazards[gi].for_each(t, i, [&](long row, long j) { pre.push_back(latest.of(row, j)); });
        const PointArgs args{static_cast<long>(gi), t, i};
        latest.of(t, i) = processor_of(procs, g, i).spawn(kPointTask, &args, sizeof args, Event::merge_events(pre));
      }
    }
  return issue.end();
}

// realm_subgraph: K rows of a graph (-subgraph-rows, default 1) as one Subgraph with one task
// per point, wired inside it as taskbench::Hazards names (all in rows t-1 and t-2), and to 2W
// external preconditions (W = the graph's max width) for what lies before the block: port j is
// the completion of column j's latest task of the parity of the block's row b-1, port W+j of
// row b-2. With -subgraph-merge those 2W events are merged once per instance into the one
// precondition every task with an outside dependency waits for (fewer ports, coarser waits).
// The postconditions are the completions of the block's last two rows. Blocks with the same
// wiring share one Subgraph; each task's t comes from the instance's arguments (b, b+1, ...)
// by interpolation.
class BlockSubgraphs {
 public:
  BlockSubgraphs(const std::vector<Processor>& procs, long rows, bool merge)
      : procs_(procs), rows_(rows), merge_(merge) {}
  ~BlockSubgraphs() {
    for (auto& entry : built_) entry.second.graph.destroy();
  }
  size_t distinct() const { return built_.size(); }

  Event run_all() {
    Issue issue;
    std::vector<Event> pre, post;
    std::vector<long> steps;
    for (long b = 0; b < issue.steps; b += rows_)
      for (size_t gi = 0; gi < graph_data.size(); ++gi) {
        const taskbench::TaskGraph& g = graph_data[gi].graph;
        if (b >= g.timesteps()) continue;
        const long rows = std::min(rows_, g.timesteps() - b);
        wire(gi, g, issue.hazards[gi], b, rows);
        LatestTasks& latest = issue.latest[gi];
        pre.assign(latest.of_parity[(b + 1) % 2].begin(), latest.of_parity[(b + 1) % 2].end());
        pre.insert(pre.end(), latest.of_parity[b % 2].begin(), latest.of_parity[b % 2].end());
        if (merge_) pre.assign(1, Event::merge_events(pre));
        const Built& built = subgraph(g, b);
        steps.resize(size_t(rows));
        for (long k = 0; k < rows; ++k) steps[size_t(k)] = b + k;
        post.assign(built.posts.size(), Event::NO_EVENT);  // Realm fills them in, one per port
        built.graph.instantiate(steps.data(), steps.size() * sizeof(long), Realm::ProfilingRequestSet(), pre,
                                post);
        for (size_t p = 0; p < post.size(); ++p) latest.of(b + built.posts[p].first, built.posts[p].second) = post[p];
      }
    return issue.end();
  }

 private:
  struct Built {
    Realm::Subgraph graph;
    std::vector<std::pair<long, long>> posts;  // per postcondition port: (row in block, column)
  };
  static constexpr long kRow = -2, kTask = -1;

  // wiring_ for rows b..b+rows-1: graph, rows, then per row kRow, offset, width, and per task
  // kTask and its ports: j or W+j outside the block (0 when merged), 2W + k W + j inside.
  void wire(size_t gi, const taskbench::TaskGraph& g, taskbench::Hazards& hazards, long b, long rows) {
    const long w = g.max_width();
    wiring_.assign({static_cast<long>(gi), rows});
    for (long t = b; t < b + rows; ++t) {
      wiring_.insert(wiring_.end(), {kRow, g.offset(t), g.width(t)});
      for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
        wiring_.push_back(kTask);
        const size_t first_port = wiring_.size();
        hazards.for_each(t, i, [&](long row, long j) {
          const long port = row >= b ? 2 * w + (row - b) * w + j : merge_ ? 0 : row == b - 1 ? j : w + j;
          if (std::find(wiring_.begin() + long(first_port), wiring_.end(), port) == wiring_.end())
            wiring_.push_back(port);
        });
      }
    }
  }

  // The Subgraph for wiring_ (built from it on first use).
  const Built& subgraph(const taskbench::TaskGraph& g, long b) {
    auto found = built_.find(wiring_);
    if (found != built_.end()) return found->second;
    Realm::SubgraphDefinition def;
    def.concurrency_mode = Realm::SubgraphDefinition::CONCURRENT;  // blocks overlap in flight
    const long graph = wiring_[0], rows = wiring_[1], w = g.max_width();
    Built built;
    std::vector<long> row_first_task(static_cast<size_t>(rows)), row_offset(static_cast<size_t>(rows));
    long row = -1, column = 0, task = -1;
    auto dependency = [&](auto src_kind, long src, auto tgt_kind, long tgt) {
      Realm::SubgraphDefinition::Dependency d;
      d.src_op_kind = src_kind;
      d.src_op_index = static_cast<unsigned>(src);
      d.src_op_port = 0;
      d.tgt_op_kind = tgt_kind;
      d.tgt_op_index = static_cast<unsigned>(tgt);
      d.tgt_op_port = 0;
      def.dependencies.push_back(d);
    };
    for (size_t k = 2; k < wiring_.size(); ++k) {
      if (wiring_[k] == kRow) {
        ++row;
        row_offset[size_t(row)] = wiring_[k + 1];
        row_first_task[size_t(row)] = task + 1;
        column = wiring_[k + 1] - 1;
        k += 2;
        continue;
      }
      if (wiring_[k] == kTask) {
        ++task;
        ++column;
        Realm::SubgraphDefinition::TaskDesc desc;
        desc.proc = processor_of(procs_, g, column);
        desc.task_id = kPointTask;
        const PointArgs args{graph, b + row, column};
        desc.args.set(&args, sizeof args);
        def.tasks.push_back(desc);
        Realm::SubgraphDefinition::Interpolation timestep;
        timestep.offset = size_t(row) * sizeof(long);
        timestep.bytes = sizeof(long);
        timestep.target_kind = Realm::SubgraphDefinition::Interpolation::TARGET_TASK_ARGS;
        timestep.target_index = static_cast<unsigned>(task);
        timestep.target_offset = offsetof(PointArgs, t);
        timestep.redop_id = 0;
        def.interpolations.push_back(timestep);
        if (row >= rows - 2) {
          dependency(Realm::SubgraphDefinition::OPKIND_TASK, task, Realm::SubgraphDefinition::OPKIND_EXT_POSTCOND,
                     long(built.posts.size()));
          built.posts.emplace_back(row, column);
        }
        continue;
      }
      const long port = wiring_[k];
      if (port < 2 * w) {
        dependency(Realm::SubgraphDefinition::OPKIND_EXT_PRECOND, port, Realm::SubgraphDefinition::OPKIND_TASK, task);
      } else {
        const long src_row = (port - 2 * w) / w, j = (port - 2 * w) % w;
        dependency(Realm::SubgraphDefinition::OPKIND_TASK, row_first_task[size_t(src_row)] + j - row_offset[size_t(src_row)],
                   Realm::SubgraphDefinition::OPKIND_TASK, task);
      }
    }
    Realm::Subgraph::create_subgraph(built.graph, def, Realm::ProfilingRequestSet()).wait();
    return built_.emplace(wiring_, std::move(built)).first->second;
  }

  const std::vector<Processor>& procs_;
  const long rows_;
  const bool merge_;
  std::vector<long> wiring_;
  std::map<std::vector<long>, Built> built_;
};

[[noreturn]] void fail(const std::string& line) {
  std::fprintf(stderr, "taskbench: %s: %s\n", TASKBENCH_SYSTEM_NAME, line.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const long cores = taskbench::available_cores();
  taskbench::App app(argc, argv,
                     {TASKBENCH_SYSTEM_NAME,
                      {{"-worker", "N", "Realm CPU processors, one thread each (default: the cores)", 1,
                        std::min(taskbench::kMaxWorkerThreads, kMaxCpuProcessors)},
                       {"-subgraph", "", "build each row shape once as a Realm Subgraph, instantiated per timestep"},
                       {"-subgraph-rows", "K", "with -subgraph: K rows per Subgraph, wired inside it (default 1)", 1,
                        1L << 20},
                       {"-subgraph-merge", "", "with -subgraph: the outside preconditions merged once per instance"}},
                      REALM_VERSION});
  const long workers = app.flag("-worker", std::min(cores, kMaxCpuProcessors));
  const bool use_subgraphs = app.flag("-subgraph", 0) != 0;
  const long subgraph_rows = app.flag("-subgraph-rows", 1);
  const bool merge = app.flag("-subgraph-merge", 0) != 0;
  if (!use_subgraphs && (subgraph_rows != 1 || merge)) {
    std::fprintf(stderr, "taskbench: -subgraph-rows and -subgraph-merge go with -subgraph\n");
    return 2;
  }

  // Storage: every graph's outputs and scratch, 128-byte aligned, in one system-memory instance.
  size_t bytes = kAlign;
  std::vector<size_t> offsets;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    offsets.push_back(bytes);
    bytes += round_up(g.output_bytes()) * g.max_width() * 2 + round_up(g.scratch_bytes() * g.max_width());
  }

  // Realm's own flags, never the user's: -worker CPU processors, one utility processor and one
  // background worker (they share the cores), no GPU, system memory sized to the instance. Its
  // start-up lines (the driver's "no device" among them) only with -v.
  const std::string sysmem_mb = std::to_string(bytes / (1 << 20) + 64);
  std::vector<std::string> realm_args = {argv[0], "-ll:cpu", std::to_string(workers), "-ll:util", "1",
                                         "-ll:bgwork", "1", "-ll:gpu", "0", "-ll:csize", sysmem_mb};
  if (app.verbosity() == 0) realm_args.insert(realm_args.end(), {"-level", "6"});
  std::vector<char*> realm_argv;
  for (std::string& a : realm_args) realm_argv.push_back(a.data());
  realm_argv.push_back(nullptr);
  int realm_argc = static_cast<int>(realm_args.size());
  char** realm_argp = realm_argv.data();
  Realm::Runtime runtime;
  if (!runtime.init(&realm_argc, &realm_argp)) fail("Realm did not start (run with -v for its messages)");

  std::vector<Processor> procs;
  Realm::Machine::ProcessorQuery query(Realm::Machine::get_machine());
  for (Processor p : query.only_kind(Processor::LOC_PROC)) procs.push_back(p);
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
  base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;  // bytes has kAlign spare
  for (size_t k = 0; k < app.graphs().size(); ++k) {
    const taskbench::TaskGraph& g = app.graphs()[k];
    GraphData d;
    d.graph = g;
    d.stride = round_up(g.output_bytes());
    d.outputs = base + offsets[k] - kAlign;
    d.scratch = d.outputs + d.stride * g.max_width() * 2;
    if (g.scratch_bytes() > 0) task_graph_prepare_scratch(d.scratch, g.scratch_bytes() * g.max_width());
    graph_data.push_back(d);
  }
  Processor::register_task_by_kind(Processor::LOC_PROC, false, kPointTask,
                                   Realm::CodeDescriptor(point_task), Realm::ProfilingRequestSet())
      .wait();

  app.set_parallelism(1, workers);
  app.display();
  size_t distinct_rows = 0;
  // issued: when the driver had handed every task (spawn or instantiate) to Realm, the rest of
  // the run is Realm's alone: with issuing as long as the run, the driver is the bottleneck.
  double elapsed = 0, issued = 0;
  if (use_subgraphs) {
    BlockSubgraphs blocks(procs, subgraph_rows, merge);
    const double start = taskbench::wall_time();
    const Event end = blocks.run_all();
    issued = taskbench::wall_time() - start;
    end.wait();
    elapsed = taskbench::wall_time() - start;
    distinct_rows = blocks.distinct();
  } else {
    const double start = taskbench::wall_time();
    const Event end = spawn_all(procs);
    issued = taskbench::wall_time() - start;
    end.wait();
    elapsed = taskbench::wall_time() - start;
  }
  if (use_subgraphs) {
    app.add_report_json("realm_subgraphs", std::to_string(distinct_rows));
    app.add_report_json("subgraph_rows", std::to_string(subgraph_rows));
    app.add_report_json("subgraph_merge", merge ? "true" : "false");
  }
  app.add_report_json("issue_seconds", std::to_string(issued));
  for (const GraphData& d : graph_data) {  // the last row, read from the instance itself
    const long t = d.graph.timesteps() - 1;
    for (long i = d.graph.offset(t), end = i + d.graph.width(t); i < end; ++i)
      d.graph.check_unread_output(t, i, d.output(t, i), d.graph.output_bytes());
  }
  app.report(elapsed);

  instance.destroy();
  runtime.shutdown(Event::NO_EVENT, 0);
  return runtime.wait_for_shutdown();
}
