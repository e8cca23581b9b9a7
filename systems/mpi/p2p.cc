// mpi_p2p: communicating sequential processes. Each rank owns a block of columns. Per timestep
// it posts the receives of its tasks' remote inputs and the sends of its previous outputs
// (nonblocking), runs each task as soon as that task's own inputs are in (tasks with only local
// inputs first), then completes its sends. Graphs given with -and are interleaved per timestep.
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
        if (!g->has_step(t)) continue;
        const taskbench_mpi::StepPlan& plan = g->plan(t);
        for (const taskbench_mpi::TaskPlan& task : plan.tasks) {
          g->wait_inputs(plan, task);
          g->run(t, plan, task);
        }
      }
      for (auto& g : graphs) g->wait_sends();
    }
  });
  taskbench_mpi::check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}
