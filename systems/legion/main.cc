// legion, legion_trace: Legion (the PyPI legate wheel's build) on Realm CPU processors. A logical
// region per graph holds every column's output (a byte field per output buffer, rows alternate
// between two fields), each timestep is one index launch over the row's points, and region
// requirements on partitions of that region are all Legion is told: it discovers every
// dependency itself. -trace-window N (legion_trace) wraps every N timesteps' launches in a
// Legion trace, so that a window of the same shape replays the memoized analysis. See README.md.
#include <legion.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

using namespace Legion;

namespace {

enum : TaskID { kTopTask = 1, kPointTask = 2 };
// Row t writes kOutputField[t % 2] while row t-1's field stays readable; Legion orders the
// overwrite two rows later after its readers (write-after-read).
constexpr FieldID kOutputField[2] = {100, 101};
constexpr FieldID kScratchField = 102;
// Legion's processor masks are sized at build time (LEGION_MAX_NUM_PROCS, 64 in the wheel): CPU
// and utility processors share them, with room kept for Realm's own.
constexpr long kMaxProcessors = LEGION_MAX_NUM_PROCS - 2;

taskbench::App* the_app = nullptr;  // built in main() before Legion starts; one process
double elapsed_seconds = -1;

struct PointArgs {
  int graph;
  long t;
  int read_slots;  // region requirements 1..read_slots are the inputs, interval k in slot k
};

// What decides row t's launch: the dependence set, row t-1's and row t's offset and width.
using RowShape = std::tuple<long, long, long, long, long>;

RowShape row_shape(const taskbench::TaskGraph& g, long t) {
  if (t == 0) return {-1, 0, 0, g.offset(0), g.width(0)};
  return {g.dependence_set(t), g.offset(t - 1), g.width(t - 1), g.offset(t), g.width(t)};
}

// One graph's regions and the partitions its launches use.
struct GraphRegions {
  const taskbench::TaskGraph* graph = nullptr;
  LogicalRegion outputs, scratch;           // bytes [0, max_width * size) of each
  LogicalPartition out_columns, scratch_columns;  // column i = bytes of buffer i
  // The inputs of the tasks of one row shape: partition k maps point i to the bytes of its
  // k-th dependency interval in row t-1 (empty when it has fewer).
  std::map<RowShape, std::vector<LogicalPartition>> inputs;
};

Rect<1> bytes_of(long first_column, long last_column, size_t bytes) {
  return Rect<1>(first_column * static_cast<coord_t>(bytes),
                 (last_column + 1) * static_cast<coord_t>(bytes) - 1);
}

LogicalRegion byte_region(Context ctx, Runtime* rt, long columns, size_t bytes,
                          std::initializer_list<FieldID> fields) {
  IndexSpace space = rt->create_index_space(ctx, Rect<1>(0, columns * static_cast<coord_t>(bytes) - 1));
  FieldSpace fs = rt->create_field_space(ctx);
  FieldAllocator allocator = rt->create_field_allocator(ctx, fs);
  for (FieldID f : fields) allocator.allocate_field(sizeof(char), f);
  return rt->create_logical_region(ctx, space, fs);
}

LogicalPartition column_partition(Context ctx, Runtime* rt, LogicalRegion region, size_t bytes) {
  IndexPartition p = rt->create_partition_by_blockify(ctx, region.get_index_space(),
                                                      DomainPoint(Point<1>(static_cast<coord_t>(bytes))));
  return rt->get_logical_partition(ctx, region, p);
}

void build_input_partitions(Context ctx, Runtime* rt, GraphRegions& r, long t) {
  const taskbench::TaskGraph& g = *r.graph;
  auto shape = row_shape(g, t);
  if (t == 0 || r.inputs.count(shape)) return;
  const size_t bytes = g.output_bytes();
  std::vector<std::map<DomainPoint, Domain>> slots;
  std::vector<taskbench::Interval> deps(std::max(1L, g.max_intervals()));
  for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
    const long n = g.task_dependencies(t, i, deps.data());
    if (static_cast<long>(slots.size()) < n) slots.resize(n);
    for (long k = 0; k < n; ++k) slots[k][DomainPoint(Point<1>(i))] = bytes_of(deps[k].start, deps[k].end, bytes);
  }
  IndexSpace colors = rt->create_index_space(ctx, Rect<1>(0, g.max_width() - 1));
  std::vector<LogicalPartition>& parts = r.inputs[shape];
  for (auto& domains : slots) {
    // Every color needs a domain: points with fewer intervals, and columns outside row t, get
    // an empty subregion in this slot.
    for (long i = 0; i < g.max_width(); ++i)
      domains.emplace(DomainPoint(Point<1>(i)), Rect<1>(0, -1));
    IndexPartition p = rt->create_partition_by_domain(ctx, r.outputs.get_index_space(), domains, colors,
                                                      /*perform_intersections=*/false,
                                                      LEGION_ALIASED_INCOMPLETE_KIND);
    parts.push_back(rt->get_logical_partition(ctx, r.outputs, p));
  }
}

void launch_row(Context ctx, Runtime* rt, GraphRegions& r, long t) {
  const taskbench::TaskGraph& g = *r.graph;
  const std::vector<LogicalPartition> none;
  const std::vector<LogicalPartition>& reads = t == 0 ? none : r.inputs.at(row_shape(g, t));
  const PointArgs args{static_cast<int>(g.index()), t, static_cast<int>(reads.size())};
  IndexTaskLauncher launcher(kPointTask, Rect<1>(g.offset(t), g.offset(t) + g.width(t) - 1),
                             TaskArgument(&args, sizeof args), ArgumentMap());
  launcher.add_region_requirement(
      RegionRequirement(r.out_columns, 0, LEGION_WRITE_DISCARD, LEGION_EXCLUSIVE, r.outputs)
          .add_field(kOutputField[t % 2]));
  for (const LogicalPartition& p : reads)
    launcher.add_region_requirement(RegionRequirement(p, 0, LEGION_READ_ONLY, LEGION_EXCLUSIVE, r.outputs)
                                        .add_field(kOutputField[(t - 1) % 2]));
  if (g.scratch_bytes() > 0)
    launcher.add_region_requirement(
        RegionRequirement(r.scratch_columns, 0, LEGION_READ_WRITE, LEGION_EXCLUSIVE, r.scratch)
            .add_field(kScratchField));
  rt->execute_index_space(ctx, launcher);
}

using ByteReader = FieldAccessor<LEGION_READ_ONLY, char, 1, coord_t, Realm::AffineAccessor<char, 1, coord_t>>;
using ByteWriter = FieldAccessor<LEGION_WRITE_DISCARD, char, 1, coord_t, Realm::AffineAccessor<char, 1, coord_t>>;
using ByteUpdater = FieldAccessor<LEGION_READ_WRITE, char, 1, coord_t, Realm::AffineAccessor<char, 1, coord_t>>;

// One point (t, i): its inputs are read where Legion mapped its read requirements, so a
// corrupted output is caught from what Legion delivered.
void point_task(const Task* task, const std::vector<PhysicalRegion>& regions, Context, Runtime*) {
  const PointArgs& args = *static_cast<const PointArgs*>(task->args);
  const taskbench::TaskGraph& g = the_app->graphs()[args.graph];
  const long t = args.t, i = task->index_point.point_data[0];
  const size_t bytes = g.output_bytes();

  // Per thread, reused: a leaf task never blocks, so no other task interleaves on this thread.
  thread_local std::vector<taskbench::Interval> deps;
  thread_local std::vector<const char*> inputs;
  thread_local std::vector<size_t> sizes;
  deps.resize(std::max<size_t>(deps.size(), g.max_intervals()));
  inputs.clear();
  sizes.clear();
  const long n = g.task_dependencies(t, i, deps.data());
  for (long k = 0; k < n && k < args.read_slots; ++k) {
    ByteReader in(regions[1 + k], kOutputField[(t - 1) % 2]);
    for (long j = deps[k].start; j <= deps[k].end; ++j) {
      inputs.push_back(in.ptr(Point<1>(j * static_cast<coord_t>(bytes))));
      sizes.push_back(bytes);
    }
  }
  ByteWriter out(regions[0], kOutputField[t % 2]);
  char* scratch = nullptr;
  if (g.scratch_bytes() > 0) {
    ByteUpdater s(regions[1 + args.read_slots], kScratchField);
    scratch = s.ptr(Point<1>(i * static_cast<coord_t>(g.scratch_bytes())));
  }
  g.execute_point(t, i, out.ptr(Point<1>(i * static_cast<coord_t>(bytes))), bytes, inputs.data(),
                  sizes.data(), inputs.size(), scratch, g.scratch_bytes());
}

// After the clock: the last row's bytes of its field, a subregion mapped inline (a row narrower
// than the graph, dom's and tree's, never wrote the rest: Legion refuses to map that for reading),
// so its outputs are checked as Legion holds them.
void check_last_row(Context ctx, Runtime* rt, const GraphRegions& r) {
  const taskbench::TaskGraph& g = *r.graph;
  const long t = g.timesteps() - 1;
  const size_t bytes = g.output_bytes();
  std::map<DomainPoint, Domain> span{{DomainPoint(Point<1>(0)), bytes_of(g.offset(t), g.offset(t) + g.width(t) - 1, bytes)}};
  IndexPartition part = rt->create_partition_by_domain(ctx, r.outputs.get_index_space(), span,
                                                       rt->create_index_space(ctx, Rect<1>(0, 0)));
  const LogicalRegion region = rt->get_logical_subregion_by_color(ctx, rt->get_logical_partition(ctx, r.outputs, part),
                                                                   DomainPoint(Point<1>(0)));
  RegionRequirement last(region, LEGION_READ_ONLY, LEGION_EXCLUSIVE, r.outputs);
  last.add_field(kOutputField[t % 2]);
  PhysicalRegion mapped = rt->map_region(ctx, last);
  mapped.wait_until_valid();
  ByteReader row(mapped, kOutputField[t % 2]);
  for (long i = g.offset(t), end = i + g.width(t); i < end; ++i)
    g.check_unread_output(t, i, row.ptr(Point<1>(i * static_cast<coord_t>(bytes))), bytes);
  rt->unmap_region(ctx, mapped);
}

void top_task(const Task*, const std::vector<PhysicalRegion>&, Context ctx, Runtime* rt) {
  const std::vector<taskbench::TaskGraph>& graphs = the_app->graphs();
  std::vector<GraphRegions> regions(graphs.size());
  for (size_t k = 0; k < graphs.size(); ++k) {
    const taskbench::TaskGraph& g = graphs[k];
    GraphRegions& r = regions[k];
    r.graph = &g;
    r.outputs = byte_region(ctx, rt, g.max_width(), g.output_bytes(), {kOutputField[0], kOutputField[1]});
    r.out_columns = column_partition(ctx, rt, r.outputs, g.output_bytes());
    if (g.scratch_bytes() > 0) {
      r.scratch = byte_region(ctx, rt, g.max_width(), g.scratch_bytes(), {kScratchField});
      r.scratch_columns = column_partition(ctx, rt, r.scratch, g.scratch_bytes());
      const char zero = 0;  // task_graph_prepare_scratch's contents
      rt->fill_field(ctx, r.scratch, r.scratch, kScratchField, &zero, sizeof zero);
    }
    for (long t = 1; t < g.timesteps(); ++t) build_input_partitions(ctx, rt, r, t);
  }

  // A window's trace id is the same for every window of the same shape (its rows' shapes and
  // field parities in every graph), so a repeated shape replays the trace Legion recorded.
  const long window = the_app->flag("-trace-window", 0);
  std::map<std::vector<long>, TraceID> trace_ids;
  const long steps = taskbench::max_timesteps(graphs);

  rt->issue_execution_fence(ctx).get_void_result();  // setup (partitions, fills) is not timed
  const double start = taskbench::wall_time();
  for (long first = 0; first < steps; first += window > 0 ? window : steps) {
    const long last = window > 0 ? std::min(steps, first + window) : steps;
    TraceID id = 0;
    if (window > 0) {
      std::vector<long> key;
      for (long t = first; t < last; ++t)
        for (const GraphRegions& r : regions) {
          if (t >= r.graph->timesteps()) {
            key.push_back(-2);
            continue;
          }
          auto [dset, prev_off, prev_w, off, w] = row_shape(*r.graph, t);
          key.insert(key.end(), {t % 2, dset, prev_off, prev_w, off, w});
        }
      id = trace_ids.emplace(key, static_cast<TraceID>(trace_ids.size() + 1)).first->second;
      rt->begin_trace(ctx, id);
    }
    for (long t = first; t < last; ++t)
      for (GraphRegions& r : regions)
        if (t < r.graph->timesteps()) launch_row(ctx, rt, r, t);
    if (window > 0) rt->end_trace(ctx, id);
  }
  rt->issue_execution_fence(ctx).get_void_result();
  elapsed_seconds = taskbench::wall_time() - start;
  the_app->add_report_json("legion_trace_window", std::to_string(window));
  the_app->add_report_json("legion_traces", std::to_string(trace_ids.size()));
  for (const GraphRegions& r : regions) check_last_row(ctx, rt, r);
}

// Realm and Legion flags: one CPU processor per -worker, -util utility processors (default none:
// Legion's analysis and mapping then run on the CPU processors, with no extra thread competing
// for the cores; README.md has the measurements), one background worker, small memories,
// and their own log lines (start-up notices, the absent GPU) off stderr unless -v.
std::vector<std::string> legion_arguments(const taskbench::App& app, long cpus, long utility) {
  size_t bytes = 0;
  for (const taskbench::TaskGraph& g : app.graphs())
    bytes += g.max_width() * (2 * g.output_bytes() + g.scratch_bytes());
  // The default mapper keeps one instance per field of each region; room for twice that.
  const long megabytes = std::max<long>(64, static_cast<long>(bytes / (1 << 20)) + 16);
  std::vector<std::string> args = {"legion", "-ll:cpu", std::to_string(cpus), "-ll:util", std::to_string(utility),
                                   "-ll:bgwork", "1", "-ll:gpu", "0", "-ll:csize",
                                   std::to_string(megabytes), "-ll:rsize", "0",
                                   "-logfile", "stderr"};
  if (app.verbosity() == 0) args.insert(args.end(), {"-level", "5,gpu=6"});
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv,
                     {TASKBENCH_SYSTEM_NAME,
                      {{"-worker", "N", "Legion CPU processors (default: cores)", 1, kMaxProcessors},
                       {"-util", "N", "Legion utility processors (default 0: Legion's work on the CPU processors)", 0,
                        kMaxProcessors - 1},
                       {"-trace-window", "N", "Legion trace around every N timesteps (default 0: no tracing)", 0,
                        1L << 30}},
                      LEGION_VERSION});
  the_app = &app;
  const long cpus = app.flag("-worker", std::min(taskbench::available_cores(), kMaxProcessors));
  const long utility = app.flag("-util", 0);
  if (cpus + utility > kMaxProcessors) {
    std::fprintf(stderr, "taskbench: -util: invalid value '%ld'; -worker plus -util must be at most %ld "
                 "(the processors Legion is built for)\n", utility, kMaxProcessors);
    return 2;
  }
  app.set_parallelism(1, cpus);
  app.display();

  {
    TaskVariantRegistrar top(kTopTask, "taskbench_top");
    top.add_constraint(ProcessorConstraint(Processor::LOC_PROC));
    Runtime::preregister_task_variant<top_task>(top, "taskbench_top");
    TaskVariantRegistrar point(kPointTask, "taskbench_point");
    point.add_constraint(ProcessorConstraint(Processor::LOC_PROC));
    point.set_leaf();
    Runtime::preregister_task_variant<point_task>(point, "taskbench_point");
  }
  Runtime::set_top_level_task_id(kTopTask);
  std::vector<std::string> args = legion_arguments(app, cpus, utility);
  std::vector<char*> legion_argv;
  for (std::string& a : args) legion_argv.push_back(a.data());
  legion_argv.push_back(nullptr);
  // In the background, so that the report comes after Legion and Realm have shut down.
  Runtime::start(static_cast<int>(args.size()), legion_argv.data(), /*background=*/true);
  if (const int status = Runtime::wait_for_shutdown(); status != 0 || elapsed_seconds < 0) {
    std::fprintf(stderr, "taskbench: %s: Legion ended with status %d before the graphs ran\n",
                 TASKBENCH_SYSTEM_NAME, status);
    return 1;
  }
  app.report(elapsed_seconds);
  return 0;
}
