// One graph as one rank runs it: its columns, buffers, step plans and the requests in flight.
// Messages go on MPI_COMM_WORLD, as in the paper's ports: the graphs of -and run one after the
// other and both sides post each pair's messages in the same order, so MPI's non-overtaking
// rule matches them even where tags repeat. (A communicator per graph would cost a
// rank-sized group on every rank: 12 bytes x ranks^2 under SMPI, 12 GB at 32,768 ranks.)
// The three systems differ only in what follows the exchange: a barrier (mpi_bulk), and
// whether a rank's tasks run on one thread or in an OpenMP loop (mpi_openmp).
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
  RankGraph(const RankGraph&) = delete;
  RankGraph& operator=(const RankGraph&) = delete;

  long timesteps() const { return graph_.timesteps(); }
  const StepPlan& plan(long t) const { return plans_.plans[plans_.plan_of_step[t]]; }

  // The step's communication, as the paper's ports: its receives posted, its local inputs
  // copied, its sends posted (nonblocking), then a wait for all of them.
  void exchange(const StepPlan& plan);
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
  RankBuffers buffers_;
  GraphPlans plans_;
  std::vector<size_t> input_bytes_;  // every input has the graph's output size
  std::vector<MPI_Request> requests_;
};

// One RankGraph per graph of the run (-and), in order.
std::vector<std::unique_ptr<RankGraph>> make_rank_graphs(
    const std::vector<taskbench::TaskGraph>& graphs, int rank, int ranks);

inline void check_last_rows(const std::vector<std::unique_ptr<RankGraph>>& graphs) {
  for (const auto& g : graphs) g->check_last_row();
}

}  // namespace taskbench_mpi
