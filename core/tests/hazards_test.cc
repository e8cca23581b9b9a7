// taskbench::Hazards against an independent definition: a simulation of the two-slot layout
// (task (t, i) writes slot t mod 2 of column i, reads its inputs' slots of row t-1, and uses
// column i's scratch when the graph has one) that records, for each task, every earlier task
// whose access conflicts with its own. Hazards may leave out a conflict that its other waits
// already imply (the writer of a slot that was read), never more: so each task's waits must be
// a subset of its conflicts, and its conflicts within the transitive closure of the waits.
#include <gtest/gtest.h>

#include <bitset>
#include <string>
#include <utility>
#include <vector>

#include "graph_grid.h"
#include "spec_patterns.h"
#include "taskbench/hazards.h"

namespace {

using namespace taskbench_test;
using Task = std::pair<long, long>;  // (row, column)
constexpr size_t kMaxTasks = 17 * 9;
using TaskSet = std::bitset<kMaxTasks>;

struct Slot {
  long writer = -1;           // task id, or -1
  std::vector<long> readers;  // since that write
};

class Layout {
 public:
  explicit Layout(const task_graph_t& g) : g_(g), ids_(g.timesteps * g.max_width, -1) {
    for (long t = 0; t < g.timesteps; ++t)
      for (long i = spec::offset_at(g, t); i < spec::offset_at(g, t) + spec::width_at(g, t); ++i)
        ids_[t * g.max_width + i] = tasks_++;
    slots_[0].resize(g.max_width);
    slots_[1].resize(g.max_width);
    scratch_user_.assign(g.max_width, -1);
  }
  // Task (t, i)'s number, in row order; -1 where the graph has no such task.
  long id(long t, long i) const { return ids_.at(t * g_.max_width + i); }
  size_t tasks() const { return tasks_; }

  // Task (t, i)'s conflicts with the tasks before it (rows in order), then its accesses.
  TaskSet conflicts_of(long t, long i) {
    TaskSet c;
    const spec::Points inputs = spec::task_dependencies(g_, t, i);
    for (long j : inputs) c.set(slots_[(t - 1) % 2][j].writer);  // read after write
    Slot& own = slots_[t % 2][i];
    for (long r : own.readers) c.set(r);                          // write after read
    if (own.writer >= 0) c.set(own.writer);                       // write after write
    if (g_.scratch_bytes_per_task > 0 && scratch_user_[i] >= 0) c.set(scratch_user_[i]);
    const long me = id(t, i);
    for (long j : inputs) slots_[(t - 1) % 2][j].readers.push_back(me);
    own = {me, {}};
    scratch_user_[i] = me;
    return c;
  }

 private:
  task_graph_t g_;
  std::vector<long> ids_;
  size_t tasks_ = 0;
  std::vector<Slot> slots_[2];
  std::vector<long> scratch_user_;
};

void check(const task_graph_t& raw) {
  const std::string where = name(raw) + " scratch=" + std::to_string(raw.scratch_bytes_per_task);
  taskbench::TaskGraph g(raw);
  taskbench::Hazards hazards(g);
  Layout layout(raw);
  ASSERT_LE(layout.tasks(), kMaxTasks);
  std::vector<TaskSet> ancestors(layout.tasks());
  for (long t = 0; t < raw.timesteps; ++t)
    for (long i = spec::offset_at(raw, t); i < spec::offset_at(raw, t) + spec::width_at(raw, t); ++i) {
      const TaskSet conflicts = layout.conflicts_of(t, i);
      TaskSet waits, closure;
      Task previous{-1, -1};
      hazards.for_each(t, i, [&](long row, long j) {
        const Task task{row, j};
        EXPECT_LT(previous, task) << where << ": (" << t << ", " << i << ") visits out of order or twice";
        previous = task;
        const long p = layout.id(row, j);
        ASSERT_GE(p, 0) << where << ": (" << t << ", " << i << ") waits for (" << row << ", " << j << "), no task";
        waits.set(p);
        closure |= ancestors[p];
        closure.set(p);
      });
      const long me = layout.id(t, i);
      ancestors[me] = closure;
      EXPECT_EQ((waits & ~conflicts).count(), 0u) << where << ": (" << t << ", " << i << ") waits for a task it does not conflict with";
      EXPECT_EQ((conflicts & ~closure).count(), 0u) << where << ": (" << t << ", " << i << ") is not ordered after a task it conflicts with";
    }
}

class HazardsOfEveryPattern : public ::testing::TestWithParam<dependence_type_t> {};

TEST_P(HazardsOfEveryPattern, AreTheLayoutsConflictsUpToTransitivity) {
  for_each_graph(GetParam(), 9, [](task_graph_t raw) {
    for (size_t scratch : {0, 64}) {
      raw.scratch_bytes_per_task = scratch;
      check(raw);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllPatterns, HazardsOfEveryPattern, ::testing::ValuesIn(kAll),
                         [](const auto& info) { return std::string(taskbench::pattern_name(info.param)); });

// The premise of the model: a column's tasks are one interval of rows, in every pattern.
TEST(Hazards, EveryColumnIsOneIntervalOfRows) {
  for (dependence_type_t p : kAll)
    for_each_graph(p, 9, [](const task_graph_t& raw) {
      taskbench::TaskGraph g(raw);
      for (long i = 0; i < raw.max_width; ++i) {
        long runs = 0;
        for (long t = 0; t < raw.timesteps; ++t)
          if (g.contains(t, i) && (t == 0 || !g.contains(t - 1, i))) ++runs;
        EXPECT_LE(runs, 1) << name(raw) << " column " << i;
      }
    });
}

// The shortcut is taken where it should be, so that the common patterns cost one query a task.
TEST(Hazards, InputsCoverAllForSymmetricPatternsOnly) {
  EXPECT_TRUE(taskbench::Hazards(taskbench::TaskGraph(make(STENCIL_1D, 8, 5, 3, 1, 0.25))).inputs_cover_all());
  EXPECT_TRUE(taskbench::Hazards(taskbench::TaskGraph(make(NEAREST, 8, 5, 5, 1, 0.25))).inputs_cover_all());
  EXPECT_FALSE(taskbench::Hazards(taskbench::TaskGraph(make(TRIVIAL, 8, 5, 3, 1, 0.25))).inputs_cover_all());
  EXPECT_FALSE(taskbench::Hazards(taskbench::TaskGraph(make(NEAREST, 8, 5, 4, 1, 0.25))).inputs_cover_all());
}

}  // namespace
