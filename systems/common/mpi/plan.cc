#include "plan.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

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

// A dependence edge that crosses ranks, (producer, consumer): the order both sides post in.
using Edge = std::pair<long, long>;

class StepBuilder {
 public:
  StepBuilder(const TaskGraph& g, const Layout& layout, int rank, long tag_limit,
              RankBuffers& buffers)
      : g_(g), layout_(layout), me_(rank), tag_limit_(tag_limit), buffers_(buffers),
        intervals_(g.max_intervals()) {}

  StepPlan build(long t) {
    StepPlan plan;
    plan_tasks(t, plan);
    if (t > 0) plan_sends(t, plan);
    return plan;
  }

 private:
  int tag(long column) const { return static_cast<int>(column % tag_limit_); }

  // Each task's inputs, a slot per dependency: received from the producer's rank, or copied
  // from this rank's own output of row t-1.
  void plan_tasks(long t, StepPlan& plan) {
    std::map<Edge, char*> receive_slots;  // ascending (producer, consumer)
    size_t slots = 0;
    const Range row = owned_row(g_, layout_, me_, t);
    for (long i = row.begin; i < row.end; ++i) {
      TaskPlan task{i, buffers_.output(t, i), buffers_.scratch(i),
                    static_cast<uint32_t>(plan.inputs.size()), 0};
      const long n = g_.task_dependencies(t, i, intervals_.data());
      for (long d = 0; d < n; ++d)
        for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) {
          char* slot = buffers_.input_slot(slots++);
          plan.inputs.push_back(slot);
          if (layout_.owner(j) == me_)
            plan.copies.push_back({buffers_.output(t - 1, j), slot});
          else
            receive_slots.emplace(Edge{j, i}, slot);
        }
      task.inputs_end = static_cast<uint32_t>(plan.inputs.size());
      plan.tasks.push_back(task);
    }
    for (const auto& [edge, slot] : receive_slots)
      plan.receives.push_back({layout_.owner(edge.first), tag(edge.first), slot});
  }

  // This rank's row t-1 outputs, one message per consumer on another rank.
  void plan_sends(long t, StepPlan& plan) {
    const Range prev = owned_row(g_, layout_, me_, t - 1);
    for (long j = prev.begin; j < prev.end; ++j) {
      const long n = g_.task_successors(t - 1, j, intervals_.data());
      consumers_.clear();
      for (long d = 0; d < n; ++d)
        for (long i = intervals_[d].start; i <= intervals_[d].end; ++i)
          if (layout_.owner(i) != me_) consumers_.push_back(i);
      std::sort(consumers_.begin(), consumers_.end());
      for (long i : consumers_) plan.sends.push_back({layout_.owner(i), tag(j), buffers_.output(t - 1, j)});
    }
  }

  const TaskGraph& g_;
  const Layout& layout_;
  int me_;
  long tag_limit_;
  RankBuffers& buffers_;
  std::vector<Interval> intervals_;
  std::vector<long> consumers_;
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
      const StepPlan& plan = result.plans.back();
      result.max_requests = std::max(result.max_requests, plan.receives.size() + plan.sends.size());
    }
    result.plan_of_step[t] = it->second;
  }
  return result;
}

}  // namespace taskbench_mpi
