// A rank's communication and execution plan for one timestep of one graph, built at setup.
//
// Step t moves row t-1's outputs to the tasks of row t that read them, then runs this rank's
// row-t tasks. As the Task Bench paper's MPI ports (mpi/nonblock.cc, bulk_synchronous.cc,
// mpi_openmp/forall.cc) do it: every input of a task has a slot of its own, filled by one
// message per dependence edge when its producer is on another rank, or by a copy of the
// producer's output when it is on this one; the step waits for all of its messages before any
// task runs.
//
// A step's plan depends only on the shapes of rows t-1 and t, the dependence set of row t and
// the parity of t (which output field is read and which written), so steps with the same shape
// share one plan: a periodic pattern has at most 2 x dependence_sets + 1 plans, dom and tree a
// few more while their rows grow and shrink.
#pragma once

#include <cstdint>
#include <vector>

#include "buffers.h"
#include "layout.h"
#include "taskbench/task_graph.h"

namespace taskbench_mpi {

// One message of a dependence edge: producer column j (row t-1) to consumer column i (row t).
struct Message {
  int peer;     // the other rank
  int tag;      // the producer's column (modulo the MPI's tag limit)
  char* data;   // receive: the consumer's input slot; send: this rank's output of row t-1
};

// An input whose producer is on this rank: its output copied into the consumer's slot.
struct Copy {
  const char* from;
  char* to;
};

struct TaskPlan {
  long point;
  char* output;
  char* scratch;
  uint32_t inputs_begin, inputs_end;  // StepPlan::inputs: the task's slots in dependency order
};

struct StepPlan {
  // Receives and sends both in ascending (producer, consumer) order: the edges between two
  // ranks that share a tag are posted in the same order on both sides, so matching never
  // depends on tags alone.
  std::vector<Message> receives, sends;
  std::vector<Copy> copies;
  std::vector<TaskPlan> tasks;  // ascending columns
  std::vector<const char*> inputs;
};

struct GraphPlans {
  std::vector<StepPlan> plans;
  std::vector<uint32_t> plan_of_step;  // timestep -> index into plans
  size_t max_requests = 0;             // receives + sends of the busiest step
};

// Builds every plan of graph g for `rank`; buffers provides the addresses the plans point to.
GraphPlans build_plans(const taskbench::TaskGraph& g, const Layout& layout, int rank,
                       long tag_limit, RankBuffers& buffers);

}  // namespace taskbench_mpi
