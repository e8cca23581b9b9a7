#include "block_graph.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <immintrin.h>

#include "taskbench/hazards.h"

namespace native {

namespace {

// Body of a block task: its inputs were gathered when the block was built (they depend
// only on t mod 2, which every replay of the block keeps), so a replay rediscovers nothing.
void run_block_task(void* arg, std::int64_t row, std::int64_t i) {
  const BlockTask& k = *static_cast<const BlockTask*>(arg);
  GraphRun& run = *k.run;
  const taskbench::TaskGraph& g = run.buffers.graph();
  const long t = run.base + row;
  // Row 0 of the whole graph has no inputs, also when it replays a graph built further on.
  g.execute_point(t, i, k.output, g.output_bytes(), k.inputs, run.sizes.data(), t == 0 ? 0 : k.n, k.scratch,
                  g.scratch_bytes());
#ifdef __CLDEMOTE__
  // Another worker will read this output: push it to the shared cache now, so its read does
  // not have to fetch it from this core (5-10% of a row at width 2, see bench_exchange_floor).
  // Only then: a reader on this core would rather find it here.
  if (k.read_elsewhere) _cldemote(k.output);
#endif
}

}  // namespace

BlockGraph::BlockGraph(GraphRun& run, taskbench::Hazards& preds, long first_base, long rows, int homes)
    : g_(run.buffers.graph()),
      rows_(rows),
      period_(std::lcm(std::max(1L, g_.dependence_sets()), 2L)),
      base_(build_base(first_base)),
      // Built at 0, row 0 has no inputs and row 1 no WAR edges from row -1: not reusable.
      shape_(base_ < 2 ? Shape{-1, 0} : uniform_shape(base_, rows)) {
  const long base = base_;
  long tasks = 0;
  for (long t = base; t < base + rows; ++t) tasks += g_.width(t);
  tasks_.reserve(tasks);

  // Inputs of every task, back to back (CSR), in the order execute_point expects.
  std::vector<taskbench::Interval> deps(std::max(1L, g_.max_intervals()));
  std::vector<std::size_t> begin;
  begin.reserve(tasks + 1);
  inputs_.reserve(tasks * std::max(1L, g_.max_dependencies()));
  for (long t = base; t < base + rows; ++t)
    for (long i = g_.offset(t), end = i + g_.width(t); i < end; ++i) {
      begin.push_back(inputs_.size());
      const long n = g_.task_dependencies(t, i, deps.data());
      for (long d = 0; d < n; ++d)
        for (long j = deps[d].start; j <= deps[d].end; ++j)
          inputs_.push_back(run.buffers.output(t - 1, j));
    }
  begin.push_back(inputs_.size());
  // Columns are homed in contiguous blocks, so an interval of readers has another home
  // exactly when one of its ends has.
  auto home_of = [&](long i) { return homes > 0 ? i * homes / g_.max_width() : -1; };
  auto read_elsewhere = [&](long t, long i) {
    if (homes <= 1 || t + 1 >= g_.timesteps()) return false;
    const long n = g_.task_successors(t, i, deps.data());
    for (long d = 0; d < n; ++d)
      if (home_of(deps[d].start) != home_of(i) || home_of(deps[d].end) != home_of(i)) return true;
    return false;
  };
  tasks_.resize(tasks);
  for (long t = base, k = 0; t < base + rows; ++t)
    for (long i = g_.offset(t), end = i + g_.width(t); i < end; ++i, ++k)
      tasks_[k] = {&run, inputs_.data() + begin[k], begin[k + 1] - begin[k], run.buffers.output(t, i),
                   run.buffers.scratch(i), read_elsewhere(t, i)};

  // Node ids are consecutive, so a task's id is its row's first id plus its column offset.
  std::vector<tbrt::Graph::NodeId> first(rows);
  for (long r = 0; r < rows; ++r) {
    const long t = base + r;
    const long offset = g_.offset(t), width = g_.width(t);
    first[r] = tbrt::Graph::NodeId(graph_.size());
    for (long i = offset; i < offset + width; ++i)
      graph_.add(&run_block_task, &tasks_[graph_.size()], r, i, priority_of(rows - r),
                 int(home_of(i)));
  }
  // A reusable graph also says what a row waits for in the block before: the same graph's
  // last rows, one replay earlier (rows have one shape throughout). A replay submitted with
  // the one before (BlockSchedule::next) waits for those; otherwise the barrier between
  // submits has ordered them and the carried edges cost nothing.
  const bool carried = shape_.offset >= 0;
  for (long r = 0; r < rows; ++r) {
    const long t = base + r;
    const long offset = g_.offset(t), width = g_.width(t);
    for (long i = offset; i < offset + width; ++i) {
      const auto id = tbrt::Graph::NodeId(first[r] + (i - offset));
      preds.for_each(t, i, [&](long pt, long j) {
        const long pr = pt - base;
        if (pr >= 0)
          graph_.add_edge(tbrt::Graph::NodeId(first[pr] + (j - g_.offset(pt))), id);
        else if (carried && pr + rows >= 0)
          graph_.add_carried_edge(tbrt::Graph::NodeId(first[pr + rows] + (j - g_.offset(pt))), id);
      });
    }
  }
  graph_.finalize();
}

long BlockGraph::build_base(long base) const {
  // The first block is built as its twin one period on (with real rows before it) when
  // that has the same shape: then the later blocks replay the same graph.
  if (base >= 2 || period_ + rows_ > g_.timesteps()) return base;
  const Shape s = uniform_shape(base, rows_);
  return s.offset >= 0 && uniform_shape(period_, rows_) == s ? period_ : base;
}

BlockGraph::Shape BlockGraph::uniform_shape(long base, long rows) const {
  // Rows before 0 count as copies of row 0: a graph built further on also runs block 0
  // (with row 0's inputs left out, see run_block_task; its extra WAR edges are harmless).
  const long before = std::max(0L, base - 2);
  const Shape first{g_.offset(before), g_.width(before)};
  const long last = base + rows - 1;
  return first == Shape{g_.offset(last), g_.width(last)} ? first : Shape{-1, 0};
}

bool BlockGraph::fits(long base, long rows) const {
  // (base - base_) a multiple of period_: same dependence sets and buffer parity.
  return rows == rows_ && (base - base_) % period_ == 0 && shape_.offset >= 0 &&
         uniform_shape(base, rows) == shape_;
}

long BlockGraph::replays_to(long base, long end) const {
  // Every block of [base, end) is this graph's when rows_ keeps the period (the parity
  // included) and the first and last blocks fit: shapes only grow or stay (see the header).
  if (rows_ % period_ != 0 || (end - base) % rows_ != 0 || !fits(base, rows_) || !fits(end - rows_, rows_))
    return 1;
  return (end - base) / rows_;
}

BlockSchedule::BlockSchedule(GraphRun& run, long block_rows, int homes)
    : run_(run),
      preds_(run.buffers.graph()),
      rows_(block_rows),
      head_(head_rows(run.buffers.graph().timesteps(), block_rows)),
      homes_(homes) {}

long BlockSchedule::head_rows(long steps, long rows) {
  // At least 2 rows, so that later blocks have both rows before them (uniform shapes).
  return steps <= rows + 1 ? steps : 2 + (steps - 2) % rows;
}

BlockSchedule::Block BlockSchedule::next() {
  const long base = next_base_;
  const long rows = base == 0 ? head_ : rows_;
  run_.base = base;
  auto hit = std::find_if(cache_.begin(), cache_.end(),
                          [&](const auto& b) { return b->fits(base, rows); });
  std::unique_ptr<BlockGraph> b;
  if (hit != cache_.end()) {
    b = std::move(*hit);
    cache_.erase(hit);
  } else {
    b = std::make_unique<BlockGraph>(run_, preds_, base, rows, homes_);
    ++builds_;
    if (cache_.size() == kCached) cache_.pop_back();
  }
  cache_.insert(cache_.begin(), std::move(b));
  // Homed (every node then is), the blocks up to the end go at once when they all replay
  // this graph: no barrier between them. (A shorter head block runs alone: -block holds.)
  const long steps = run_.buffers.graph().timesteps();
  // (At most 2^30 at once: Runtime::submit counts them in 32 bits; the rest go next round.)
  const long replays =
      homes_ > 0 && rows == rows_ ? std::min(cache_.front()->replays_to(base, steps), 1L << 30) : 1;
  next_base_ += rows * replays;
  replays_ += replays;
  ++submits_;
  return {cache_.front()->graph(), replays, rows};
}

long choose_block_rows(const taskbench::TaskGraph& g, bool homed) {
  const long steps = g.timesteps();
  const double width = double(std::max(1L, g.max_width()));
  const double per_task = 1.0 + double(std::max(1L, g.max_dependencies()));
  const long period = std::lcm(std::max(1L, g.dependence_sets()), 2L);
  // Bounded memory: a block holds at most ~2^22 tasks and edges.
  const long max_rows = std::max(2L, long(double(1L << 22) / (width * per_task)));
  // A period too long for one block: blocks then never repeat and each is built (still
  // correct, as costly as discovering the tasks dynamically).
  if (period > max_rows) return max_rows / 2 * 2;
  // Homed, with rows of one shape throughout: every block after the head replays one graph,
  // submitted together with no barrier between (BlockSchedule::next). A short block costs
  // least to build (first touches included), but a replay is not free: on tiny tasks a block
  // of 2 or 4 rows ran 25% slower than one of 16 or more, and in two modes from run to run
  // (stencil_1d width 2, empty kernel, 218600 steps, 2 workers: 2 rows 428 ns a task, 8 rows
  // 366, 16 rows 355, 128 rows 340; medians of 10 interleaved runs, 2026-12-07), while at
  // 1000 steps the build dominates (nearest radix 3 width 4, -iter 128: 2 rows 805 us, 16 rows
  // 869). The build grows with the rows and the replays' cost with steps / rows, so the rows
  // grow as sqrt(steps): the period up to ~1000 steps, 28 rows at 218600. (At a METG's grain,
  // 28894 steps at -iter 362, 2 to 64 rows measured the same, within 3%.)
  if (homed && g.offset(0) == g.offset(steps - 1) && g.width(0) == g.width(steps - 1)) {
    constexpr double kStepsPerSquaredRow = 256;
    const long rows = std::lround(std::sqrt(double(steps) / kStepsPerSquaredRow)) / period * period;
    return std::clamp(rows, period, max_rows / period * period);
  }

  // Building costs about kBuildNs per task and edge (measured: 100-150 ns per stencil task,
  // including first-touch page faults); a replay costs one barrier, about kBarrierNs
  // (0.5-1 us measured on 2 cores). Blocks of P rows: the head block (the remainder, see
  // head_rows) and one body block are built, and steps/P barriers are paid.
  constexpr double kBuildNs = 30, kBarrierNs = 1000;
  auto cost = [&](long rows) {
    // One graph when the head block is as long as the others (rows divides steps).
    const long head = BlockSchedule::head_rows(steps, rows);
    const long built = head == rows || head == steps ? head : head + rows;
    return kBuildNs * width * per_task * double(built) +
           kBarrierNs * double(1 + (steps - head) / rows);
  };
  // The continuous optimum, then the best period multiple within a factor 4 of it.
  const double ideal = std::sqrt(double(steps) * kBarrierNs / (kBuildNs * width * per_task));
  const long lo = std::max(period, long(ideal / 4) / period * period);
  const long hi = std::min(max_rows, std::max(lo, long(ideal * 4)));
  long best = lo;
  for (long rows = lo; rows <= hi; rows += period)
    if (cost(rows) < cost(best)) best = rows;
  return best;
}

}  // namespace native
