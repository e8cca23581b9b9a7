// legion, legion_untraced: Legion (the PyPI legate wheel's build) on Realm CPU processors. A
// logical region per graph holds every column's output (a byte field per output buffer, rows
// alternate between two fields), each timestep is one index launch over the row's points, and
// region requirements on partitions of that region are all Legion is told: it discovers every
// dependency itself. By default the paper's port (the original's legion/main.cc): a Legion trace
// around every period of rows, a warm-up pass before the timed one, one read requirement per
// dependency point, each point on its slice's processor. Flags take each of these away
// (legion_untraced takes all four). See README.md.
#include <legion.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "mapper.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"
#include "taskbench/worker.h"

using namespace Legion;

namespace {

enum : TaskID { kTopTask = 1, kPointTask = 2 };
// Row t writes kOutputField[t % 2] while row t-1's field stays readable; Legion orders the
// overwrite two rows later after its readers (write-after-read). The paper ran with -fields 2.
constexpr long kFields = 2;
constexpr FieldID kOutputField[kFields] = {100, 101};
constexpr FieldID kScratchField = 102;
// Legion's processor masks are sized at build time (LEGION_MAX_NUM_PROCS, 64 in the wheel): CPU
// and utility processors share them, with room kept for Realm's own.
constexpr long kMaxProcessors = LEGION_MAX_NUM_PROCS - 2;

// What the flags chose; the defaults are the paper's port.
struct Design {
  long trace_window = 0;   // rows per trace; 0: no tracing
  bool warm_up = true;     // run every graph once untimed, then time a second identical pass
  bool per_point = true;   // a read requirement per dependency point (false: per interval)
  bool pinned = true;      // each point on its slice's processor (false: the default mapper)
};

taskbench::App* the_app = nullptr;  // built in main() before Legion starts; one process
Design design;
double elapsed_seconds = -1;

struct PointArgs {
  int graph;
  long t;
  int read_slots;  // region requirements 1..read_slots are the inputs, in task_dependencies order
};

// Per graph and column, the CPU processor that ran the column's tasks of the timed pass, or
// kMoved once two different ones did: pinning is checked from what Legion actually did.
constexpr uint64_t kMoved = ~uint64_t{0};
std::vector<std::unique_ptr<std::atomic<uint64_t>[]>> column_processor;

void note_processor(int graph, long i, uint64_t processor) {
  std::atomic<uint64_t>& slot = column_processor[graph][i];
  uint64_t seen = 0;
  if (!slot.compare_exchange_strong(seen, processor) && seen != processor && seen != kMoved) slot.store(kMoved);
}

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
  // k-th input (a column, or with -reads-per-interval an interval of columns) in row t-1,
  // empty when it has fewer.
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

// Point i's inputs in row t-1, one rectangle of bytes per read requirement slot.
std::vector<Rect<1>> input_slots(const taskbench::TaskGraph& g, long t, long i,
                                 std::vector<taskbench::Interval>& deps) {
  std::vector<Rect<1>> slots;
  const long n = g.task_dependencies(t, i, deps.data());
  for (long k = 0; k < n; ++k) {
    if (!design.per_point) {
      slots.push_back(bytes_of(deps[k].start, deps[k].end, g.output_bytes()));
      continue;
    }
    for (long j = deps[k].start; j <= deps[k].end; ++j) slots.push_back(bytes_of(j, j, g.output_bytes()));
  }
  return slots;
}

void build_input_partitions(Context ctx, Runtime* rt, GraphRegions& r, long t) {
  const taskbench::TaskGraph& g = *r.graph;
  auto shape = row_shape(g, t);
  if (t == 0 || r.inputs.count(shape)) return;
  std::vector<std::map<DomainPoint, Domain>> slots;
  std::vector<taskbench::Interval> deps(std::max(1L, g.max_intervals()));
  for (long i = g.offset(t); i < g.offset(t) + g.width(t); ++i) {
    const std::vector<Rect<1>> mine = input_slots(g, t, i, deps);
    if (slots.size() < mine.size()) slots.resize(mine.size());
    for (size_t k = 0; k < mine.size(); ++k) slots[k][DomainPoint(Point<1>(i))] = mine[k];
  }
  IndexSpace colors = rt->create_index_space(ctx, Rect<1>(0, g.max_width() - 1));
  std::vector<LogicalPartition>& parts = r.inputs[shape];
  for (auto& domains : slots) {
    // Every color needs a domain: points with fewer inputs, and columns outside row t, get
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
          .add_field(kOutputField[t % kFields]));
  for (const LogicalPartition& p : reads)
    launcher.add_region_requirement(RegionRequirement(p, 0, LEGION_READ_ONLY, LEGION_EXCLUSIVE, r.outputs)
                                        .add_field(kOutputField[(t - 1) % kFields]));
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
void point_task(const Task* task, const std::vector<PhysicalRegion>& regions, Context ctx, Runtime* rt) {
  const PointArgs& args = *static_cast<const PointArgs*>(task->args);
  const taskbench::TaskGraph& g = the_app->graphs()[args.graph];
  const long t = args.t, i = task->index_point.point_data[0];
  const size_t bytes = g.output_bytes();
  note_processor(args.graph, i, rt->get_executing_processor(ctx).id);

  // Per thread, reused: a leaf task never blocks, so no other task interleaves on this thread.
  thread_local std::vector<taskbench::Interval> deps;
  thread_local std::vector<const char*> inputs;
  thread_local std::vector<size_t> sizes;
  deps.resize(std::max<size_t>(deps.size(), g.max_intervals()));
  inputs.clear();
  sizes.clear();
  const long n = g.task_dependencies(t, i, deps.data());
  int slot = 0;  // the requirement holding the next input: one per point, or per interval
  for (long k = 0; k < n; ++k) {
    for (long j = deps[k].start; j <= deps[k].end && slot < args.read_slots; ++j) {
      ByteReader in(regions[1 + slot], kOutputField[(t - 1) % kFields]);
      inputs.push_back(in.ptr(Point<1>(j * static_cast<coord_t>(bytes))));
      sizes.push_back(bytes);
      if (design.per_point) ++slot;
    }
    if (!design.per_point) ++slot;
  }
  ByteWriter out(regions[0], kOutputField[t % kFields]);
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
  last.add_field(kOutputField[t % kFields]);
  PhysicalRegion mapped = rt->map_region(ctx, last);
  mapped.wait_until_valid();
  ByteReader row(mapped, kOutputField[t % kFields]);
  for (long i = g.offset(t), end = i + g.width(t); i < end; ++i)
    g.check_unread_output(t, i, row.ptr(Point<1>(i * static_cast<coord_t>(bytes))), bytes);
  rt->unmap_region(ctx, mapped);
}

// Every row of every graph, windows of design.trace_window rows from row 0 each in a trace as
// the paper's port does (a short last window is not traced). A window's trace id is the same
// for every window of the same shape (its rows' shapes and field parities in every graph), so a
// repeated shape replays what Legion recorded, in this pass or the warm-up. Returns the windows
// traced.
long run_pass(Context ctx, Runtime* rt, std::vector<GraphRegions>& regions,
              std::map<std::vector<long>, TraceID>& trace_ids) {
  std::vector<taskbench::TaskGraph> graphs;
  for (const GraphRegions& r : regions) graphs.push_back(*r.graph);
  const long steps = taskbench::max_timesteps(graphs);
  const long window = design.trace_window;
  long traced = 0;
  for (long first = 0; first < steps; first += window > 0 ? window : steps) {
    const long last = window > 0 ? std::min(steps, first + window) : steps;
    const bool trace = window > 0 && last - first == window;
    TraceID id = 0;
    if (trace) {
      std::vector<long> key;
      for (long t = first; t < last; ++t)
        for (const GraphRegions& r : regions) {
          if (t >= r.graph->timesteps()) {
            key.push_back(-2);
            continue;
          }
          auto [dset, prev_off, prev_w, off, w] = row_shape(*r.graph, t);
          key.insert(key.end(), {t % kFields, dset, prev_off, prev_w, off, w});
        }
      id = trace_ids.emplace(key, static_cast<TraceID>(trace_ids.size() + 1)).first->second;
      rt->begin_trace(ctx, id);
      ++traced;
    }
    for (long t = first; t < last; ++t)
      for (GraphRegions& r : regions)
        if (t < r.graph->timesteps()) launch_row(ctx, rt, r, t);
    if (trace) rt->end_trace(ctx, id);
  }
  rt->issue_execution_fence(ctx).get_void_result();
  return traced;
}

void clear_column_processors() {
  for (size_t k = 0; k < column_processor.size(); ++k)
    for (long i = 0; i < the_app->graphs()[k].max_width(); ++i) column_processor[k][i].store(0);
}

long columns_moved() {
  long moved = 0;
  for (size_t k = 0; k < column_processor.size(); ++k)
    for (long i = 0; i < the_app->graphs()[k].max_width(); ++i)
      moved += column_processor[k][i].load() == kMoved;
  return moved;
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

  std::map<std::vector<long>, TraceID> trace_ids;
  rt->issue_execution_fence(ctx).get_void_result();  // setup (partitions, fills) is not timed
  double warm_up = 0;
  if (design.warm_up) {
    // As the paper's port: the timed pass then replays traces already recorded, on instances
    // already made. The counts restart, so the report checks the timed pass's tasks.
    const double start = taskbench::wall_time();
    run_pass(ctx, rt, regions, trace_ids);
    warm_up = taskbench::wall_time() - start;
    taskbench::worker::reset();
    clear_column_processors();
  }
  const double start = taskbench::wall_time();
  const long traced = run_pass(ctx, rt, regions, trace_ids);
  elapsed_seconds = taskbench::wall_time() - start;
  the_app->add_report_json("legion_passes", design.warm_up ? "2" : "1");
  the_app->add_report_json("legion_warm_up_seconds", std::to_string(warm_up));
  the_app->add_report_json("legion_trace_window", std::to_string(design.trace_window));
  the_app->add_report_json("legion_traces", std::to_string(trace_ids.size()));
  the_app->add_report_json("legion_traced_windows", std::to_string(traced));
  the_app->add_report_json("legion_reads", design.per_point ? "\"per point\"" : "\"per interval\"");
  the_app->add_report_json("legion_mapper", design.pinned ? "\"pinned\"" : "\"default\"");
  the_app->add_report_json("legion_columns_moved", std::to_string(columns_moved()));
  for (const GraphRegions& r : regions) check_last_row(ctx, rt, r);
}

// Realm and Legion flags: one CPU processor per -worker, -util utility processors (default none:
// Legion's analysis and mapping then run on the CPU processors, with no extra thread competing
// for the cores; README.md has the measurements), one background worker, the paper's window of
// 8192 operations in flight, small memories, and their own log lines (start-up notices, the
// absent GPU) off stderr unless -v.
std::vector<std::string> legion_arguments(const taskbench::App& app, long cpus, long utility) {
  size_t bytes = 0;
  for (const taskbench::TaskGraph& g : app.graphs())
    bytes += g.max_width() * (2 * g.output_bytes() + g.scratch_bytes());
  // The default mapper keeps one instance per field of each region; room for twice that.
  const long megabytes = std::max<long>(64, static_cast<long>(bytes / (1 << 20)) + 16);
  std::vector<std::string> args = {"legion", "-ll:cpu", std::to_string(cpus), "-ll:util", std::to_string(utility),
                                   "-ll:bgwork", "1", "-ll:gpu", "0", "-ll:csize",
                                   std::to_string(megabytes), "-ll:rsize", "0", "-lg:window", "8192",
                                   "-logfile", "stderr"};
  if (app.verbosity() == 0) args.insert(args.end(), {"-level", "5,gpu=6"});
  return args;
}

// The paper's trace period: lcm of the fields and every graph's timestep period, so that every
// full window has the same shape (2 rows for stencil and nearest).
long trace_period(const std::vector<taskbench::TaskGraph>& graphs) {
  long period = kFields;
  for (const taskbench::TaskGraph& g : graphs) period = std::lcm(period, task_graph_timestep_period(g.raw()));
  return period;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv,
                     {TASKBENCH_SYSTEM_NAME,
                      {{"-worker", "N", "Legion CPU processors (default: cores)", 1, kMaxProcessors},
                       {"-util", "N", "Legion utility processors (default 0: Legion's work on the CPU processors)", 0,
                        kMaxProcessors - 1},
                       {"-trace-window", "N",
                        "Legion trace around every N timesteps (default: the period, lcm(2, each graph's "
                        "timestep period); 0: no tracing)",
                        0, 1L << 30},
                       {"-no-warm-up", "",
                        "time the first and only pass (default: a warm-up pass, then the timed one)"},
                       {"-reads-per-interval", "", "one read requirement per dependency interval (default: per point)"},
                       {"-any-cpu", "", "the default mapper: any local CPU may run a point (default: its slice's)"}},
                      LEGION_VERSION});
  the_app = &app;
  const long cpus = app.flag("-worker", std::min(taskbench::available_cores(), kMaxProcessors));
  const long utility = app.flag("-util", 0);
  if (cpus + utility > kMaxProcessors) {
    std::fprintf(stderr, "taskbench: -util: invalid value '%ld'; -worker plus -util must be at most %ld "
                 "(the processors Legion is built for)\n", utility, kMaxProcessors);
    return 2;
  }
  design.trace_window = app.flag("-trace-window", trace_period(app.graphs()));
  design.warm_up = app.flag("-no-warm-up", 0) == 0;
  design.per_point = app.flag("-reads-per-interval", 0) == 0;
  design.pinned = app.flag("-any-cpu", 0) == 0;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    column_processor.emplace_back(new std::atomic<uint64_t>[static_cast<size_t>(g.max_width())]);
    for (long i = 0; i < g.max_width(); ++i) column_processor.back()[i].store(0);
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
  if (design.pinned) taskbench_legion::register_pinned_mapper();
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
