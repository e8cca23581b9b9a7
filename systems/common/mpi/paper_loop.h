// The loop of the Task Bench paper's MPI ports (the original's mpi/nonblock.cc,
// mpi/bulk_synchronous.cc and mpi_openmp/forall.cc): the graphs of a run one after the other
// (-and runs them in sequence, never overlapped), every timestep an exchange (all of the step's
// messages complete), for mpi_bulk then a barrier of all ranks, then the rank's tasks of the
// step. mpi_p2p, mpi_bulk and mpi_openmp differ only in the barrier and in `run_tasks`.
#pragma once

#include <memory>
#include <vector>

#include "rank_graph.h"
#include "session.h"

namespace taskbench_mpi {

using RankGraphs = std::vector<std::unique_ptr<RankGraph>>;

enum class StepBarrier { none, all_ranks };

// Runs every graph, timed as the original times it (Session::timed_as_the_paper).
// run_tasks(graph, t, plan) runs the rank's tasks of step t.
template <class RunTasks>
double run_as_the_paper(const Session& session, const RankGraphs& graphs, StepBarrier barrier,
                        RunTasks run_tasks) {
  return session.timed_as_the_paper([&] {
    for (const auto& g : graphs)
      for (long t = 0; t < g->timesteps(); ++t) {
        const StepPlan& plan = g->plan(t);
        g->exchange(plan);
        if (barrier == StepBarrier::all_ranks) MPI_Barrier(MPI_COMM_WORLD);
        run_tasks(*g, t, plan);
      }
  });
}

// The main() of mpi_p2p and mpi_bulk: one thread per rank runs its tasks of a step in order.
inline int single_thread_main(const char* system, int argc, char** argv, StepBarrier barrier) {
  taskbench::App app(argc, argv, {system, {expect_ranks_flag()}});
  Session session(app, argc, argv, MPI_THREAD_SINGLE);
  app.display();
  const RankGraphs graphs = make_rank_graphs(app.graphs(), session.rank(), session.size());
  const double elapsed = run_as_the_paper(session, graphs, barrier, [](const RankGraph& g, long t, const StepPlan& plan) {
    for (const TaskPlan& task : plan.tasks) g.run(t, plan, task);
  });
  check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}

}  // namespace taskbench_mpi
