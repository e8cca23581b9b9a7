#include "plan.h"

#include <algorithm>
#include <array>
#include <map>

namespace taskbench_mpi {
namespace {

using taskbench::Interval;
using taskbench::TaskGraph;

struct Range {
  long begin, end;  // [begin, end)
};

// The columns of row t that `rank` owns (empty when the row lies elsewhere).
Range owned_row(const TaskGraph& g, const Layout& layout, int rank, long t) {
  return {std::max(layout.first(rank), g.offset(t)),
          std::min(layout.end(rank), g.offset(t) + g.width(t))};
}

// What decides a step's plan (see plan.h); step 0 has no inputs and no sends.
std::array<long, 6> step_shape(const TaskGraph& g, long t) {
  if (t == 0) return {-1, -1, g.offset(0), g.width(0), -1, 0};
  return {g.offset(t - 1), g.width(t - 1), g.offset(t), g.width(t), g.dependence_set(t), t % 2};
}

class StepBuilder {
 public:
  StepBuilder(const TaskGraph& g, const Layout& layout, int rank, long tag_limit,
              RankBuffers& buffers)
      : g_(g), layout_(layout), me_(rank), tag_limit_(tag_limit), buffers_(buffers),
        intervals_(g.max_intervals()) {}

  StepPlan build(long t) {
    StepPlan plan;
    plan_receives(t, plan);
    plan_tasks(t, plan);
    if (t > 0) plan_sends(t, plan);
    return plan;
  }

 private:
  template <class Visit>
  void for_each_dependency(long t, long i, Visit visit) {
    const long n = g_.task_dependencies(t, i, intervals_.data());
    for (long d = 0; d < n; ++d)
      for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) visit(j);
  }
  int tag(long column) const { return static_cast<int>(column % tag_limit_); }

  // Every remote producer that any of this rank's row-t tasks reads, received once.
  void plan_receives(long t, StepPlan& plan) {
    slot_of_.clear();
    const Range row = owned_row(g_, layout_, me_, t);
    for (long i = row.begin; i < row.end; ++i)
      for_each_dependency(t, i, [&](long j) {
        if (layout_.owner(j) != me_) slot_of_.emplace(j, 0);
      });
    for (auto& [column, slot] : slot_of_) {  // std::map: ascending columns
      slot = static_cast<uint32_t>(plan.receives.size());
      plan.receives.push_back({layout_.owner(column), tag(column), buffers_.receive_slot(slot)});
    }
  }

  // Each task's input pointers: this rank's own outputs of row t-1 in place, others' in the
  // receive slots. Tasks needing no message go first.
  void plan_tasks(long t, StepPlan& plan) {
    std::vector<TaskPlan> waiting;
    const Range row = owned_row(g_, layout_, me_, t);
    for (long i = row.begin; i < row.end; ++i) {
      TaskPlan task{i, buffers_.output(t, i), buffers_.scratch(i),
                    static_cast<uint32_t>(plan.inputs.size()), 0,
                    static_cast<uint32_t>(plan.waits.size()), 0};
      for_each_dependency(t, i, [&](long j) {
        if (layout_.owner(j) == me_) {
          plan.inputs.push_back(buffers_.output(t - 1, j));
        } else {
          const uint32_t slot = slot_of_.at(j);
          plan.inputs.push_back(plan.receives[slot].data);
          plan.waits.push_back(slot);
        }
      });
      task.inputs_end = static_cast<uint32_t>(plan.inputs.size());
      task.waits_end = static_cast<uint32_t>(plan.waits.size());
      (task.waits_begin == task.waits_end ? plan.tasks : waiting).push_back(task);
    }
    plan.tasks.insert(plan.tasks.end(), waiting.begin(), waiting.end());
  }

  // This rank's row t-1 outputs, each sent once to every other rank that consumes it in row t.
  // Blocks are contiguous, so the ranks owning a successor interval are owner(start)..owner(end).
  void plan_sends(long t, StepPlan& plan) {
    const Range prev = owned_row(g_, layout_, me_, t - 1);
    for (long j = prev.begin; j < prev.end; ++j) {
      const long n = g_.task_successors(t - 1, j, intervals_.data());
      peers_.clear();
      for (long d = 0; d < n; ++d)
        for (int r = layout_.owner(intervals_[d].start); r <= layout_.owner(intervals_[d].end); ++r)
          if (r != me_) peers_.push_back(r);
      std::sort(peers_.begin(), peers_.end());
      peers_.erase(std::unique(peers_.begin(), peers_.end()), peers_.end());
      for (int r : peers_) plan.sends.push_back({r, tag(j), buffers_.output(t - 1, j)});
    }
  }

  const TaskGraph& g_;
  const Layout& layout_;
  int me_;
  long tag_limit_;
  RankBuffers& buffers_;
  std::vector<Interval> intervals_;
  std::map<long, uint32_t> slot_of_;
  std::vector<int> peers_;
};

}  // namespace

GraphPlans build_plans(const TaskGraph& g, const Layout& layout, int rank, long tag_limit,
                       RankBuffers& buffers) {
  GraphPlans result;
  StepBuilder builder(g, layout, rank, tag_limit, buffers);
  std::map<std::array<long, 6>, uint32_t> plan_of_shape;
  result.plan_of_step.resize(g.timesteps());
  for (long t = 0; t < g.timesteps(); ++t) {
    auto [it, is_new] = plan_of_shape.emplace(step_shape(g, t), result.plans.size());
    if (is_new) {
      result.plans.push_back(builder.build(t));
      result.max_receives = std::max(result.max_receives, result.plans.back().receives.size());
      result.max_sends = std::max(result.max_sends, result.plans.back().sends.size());
    }
    result.plan_of_step[t] = it->second;
  }
  return result;
}

}  // namespace taskbench_mpi
