// One graph as one rank runs it: its columns, buffers, step plans, its own communicator (so the
// messages of graphs run together with -and never match each other) and the requests in flight.
// The three systems differ only in when they call post / wait_* / run.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "buffers.h"
#include "layout.h"
#include "plan.h"
#include "taskbench/task_graph.h"

namespace taskbench_mpi {

class RankGraph {
 public:
  RankGraph(const taskbench::TaskGraph& g, int rank, int ranks);
  ~RankGraph();
  RankGraph(const RankGraph&) = delete;
  RankGraph& operator=(const RankGraph&) = delete;

  bool has_step(long t) const { return t < graph_.timesteps(); }
  const StepPlan& plan(long t) const { return plans_.plans[plans_.plan_of_step[t]]; }

  // Posts the step's sends, then its receives (nonblocking).
  void post(const StepPlan& plan);
  // Waits for the receives one task reads (p2p: each task starts as soon as its inputs are in).
  void wait_inputs(const StepPlan& plan, const TaskPlan& task) {
    for (uint32_t k = task.waits_begin; k < task.waits_end; ++k)
      MPI_Wait(&receive_requests_[plan.waits[k]], MPI_STATUS_IGNORE);
  }
  void wait_receives();
  // A step's sends must finish before the next step's tasks overwrite the field they read.
  void wait_sends();
  // After the run: this rank's outputs of the last timestep, to the core's check.
  void check_last_row() const;

  // Runs one task of the step's plan; only touches the task's own output and scratch, so the
  // tasks of a step may run concurrently.
  void run(long t, const StepPlan& plan, const TaskPlan& task) const {
    // execute_point only reads the pointer array; its signature just lacks the inner const.
    graph_.execute_point(t, task.point, task.output, buffers_.output_bytes(),
                         const_cast<const char**>(plan.inputs.data()) + task.inputs_begin,
                         input_bytes_.data(),
                         task.inputs_end - task.inputs_begin, task.scratch,
                         buffers_.scratch_bytes());
  }

 private:
  taskbench::TaskGraph graph_;
  Layout layout_;
  long first_, end_;  // this rank's columns
  MPI_Comm comm_ = MPI_COMM_NULL;
  RankBuffers buffers_;
  GraphPlans plans_;
  std::vector<size_t> input_bytes_;  // every input has the graph's output size
  std::vector<MPI_Request> receive_requests_, send_requests_;
  int receives_posted_ = 0, sends_posted_ = 0;
};

// One RankGraph per graph of the run (-and), in order. Destroy them before MPI finalizes
// (each holds a communicator): declare the vector after the Session.
std::vector<std::unique_ptr<RankGraph>> make_rank_graphs(
    const std::vector<taskbench::TaskGraph>& graphs, int rank, int ranks);

inline void check_last_rows(const std::vector<std::unique_ptr<RankGraph>>& graphs) {
  for (const auto& g : graphs) g->check_last_row();
}

}  // namespace taskbench_mpi
