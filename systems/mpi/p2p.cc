// mpi_p2p: communicating sequential processes. Each rank owns a block of columns. Per timestep
// it posts the receives of its tasks' remote inputs and the sends of its previous outputs
// (nonblocking), runs each task as soon as that task's own inputs are in (tasks with only local
// inputs first), then completes its sends. Graphs given with -and are interleaved per timestep.
#include "stepped_main.h"

namespace {

void step(long t, const taskbench_mpi::RankGraphs& graphs) {
  for (auto& g : graphs)
    if (g->has_step(t)) g->post(g->plan(t));
  for (auto& g : graphs) {
    if (!g->has_step(t)) continue;
    const taskbench_mpi::StepPlan& plan = g->plan(t);
    for (const taskbench_mpi::TaskPlan& task : plan.tasks) {
      g->wait_inputs(plan, task);
      g->run(t, plan, task);
    }
  }
  for (auto& g : graphs) g->wait_sends();
}

}  // namespace

int main(int argc, char** argv) {
  return taskbench_mpi::stepped_main(TASKBENCH_SYSTEM_NAME, argc, argv, step);
}
