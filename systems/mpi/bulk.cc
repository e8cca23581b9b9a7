// mpi_bulk: bulk-synchronous. The same plans and messages as mpi_p2p, but each timestep first
// completes all of its communication (every receive and every send of every graph) and only
// then runs its tasks: no overlap of messages and computation, the classic BSP superstep.
#include "stepped_main.h"

namespace {

void step(long t, const taskbench_mpi::RankGraphs& graphs) {
  for (auto& g : graphs)
    if (g->has_step(t)) g->post(g->plan(t));
  for (auto& g : graphs) {
    g->wait_receives();
    g->wait_sends();
  }
  for (auto& g : graphs) {
    if (!g->has_step(t)) continue;
    const taskbench_mpi::StepPlan& plan = g->plan(t);
    for (const taskbench_mpi::TaskPlan& task : plan.tasks) g->run(t, plan, task);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return taskbench_mpi::stepped_main(TASKBENCH_SYSTEM_NAME, argc, argv, step);
}
