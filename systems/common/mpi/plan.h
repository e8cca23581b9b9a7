// A rank's communication and execution plan for one timestep of one graph, built at setup.
//
// Step t moves row t-1's outputs to the ranks whose row-t tasks consume them, then runs this
// rank's row-t tasks. A step's plan depends only on the shapes of rows t-1 and t, the dependence
// set of row t and the parity of t (which output field is read and which written), so steps
// with the same shape share one plan: a periodic pattern has at most 2 x dependence_sets + 1
// plans, dom and tree a few more while their rows grow and shrink.
#pragma once

#include <cstdint>
#include <vector>

#include "buffers.h"
#include "layout.h"
#include "taskbench/task_graph.h"

namespace taskbench_mpi {

struct Message {
  int peer;     // the other rank
  int tag;      // the producer's column (modulo the MPI's tag limit)
  char* data;   // receive slot, or this rank's output of row t-1
};

struct TaskPlan {
  long point;
  char* output;
  char* scratch;
  uint32_t inputs_begin, inputs_end;  // StepPlan::inputs: pointers in dependency order
  uint32_t waits_begin, waits_end;    // StepPlan::waits: receives the task must wait for
};

struct StepPlan {
  // Receives in ascending producer column, sends in ascending column: each pair of ranks
  // posts its messages in the same order, so matching never depends on tags alone.
  std::vector<Message> receives, sends;
  // Tasks with only local inputs come first: they run while the messages are in flight.
  std::vector<TaskPlan> tasks;
  std::vector<const char*> inputs;
  std::vector<uint32_t> waits;

  bool has_messages() const { return !receives.empty() || !sends.empty(); }
};

struct GraphPlans {
  std::vector<StepPlan> plans;
  std::vector<uint32_t> plan_of_step;  // timestep -> index into plans
  size_t max_receives = 0, max_sends = 0;
};

// Builds every plan of graph g for `rank`; buffers provides the addresses the plans point to.
GraphPlans build_plans(const taskbench::TaskGraph& g, const Layout& layout, int rank,
                       long tag_limit, RankBuffers& buffers);

}  // namespace taskbench_mpi
