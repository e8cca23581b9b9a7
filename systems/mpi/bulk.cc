// mpi_bulk: bulk-synchronous. The same plans and messages as mpi_p2p, but each timestep first
// completes all of its communication (every receive and every send of every graph) and only
// then runs its tasks: no overlap of messages and computation, the classic BSP superstep.
#include <vector>

#include "rank_graph.h"
#include "session.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME, {taskbench_mpi::expect_ranks_flag()}});
  taskbench_mpi::Session session(app, argc, argv, MPI_THREAD_SINGLE);
  app.display();
  const auto graphs = taskbench_mpi::make_rank_graphs(app.graphs(), session.rank(), session.size());
  const long steps = taskbench::max_timesteps(app.graphs());

  const double elapsed = session.timed([&] {
    for (long t = 0; t < steps; ++t) {
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
  });
  taskbench_mpi::check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}
