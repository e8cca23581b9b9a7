// mpi_openmp: the Task Bench paper's MPI+OpenMP port (the original's mpi_openmp/forall.cc),
// ranks x threads. Per timestep the rank's main thread runs mpi_p2p's exchange (outside any
// parallel region), then the rank's tasks of the step run in a parallel loop,
// `omp parallel for schedule(runtime)` (the paper's runs set OMP_SCHEDULE=static,1; the
// registry entry does too). Graphs given with -and run one after the other.
#include <omp.h>

#include <cstdlib>

#include "paper_loop.h"

int main(int argc, char** argv) {
  taskbench::AppOptions options{
      TASKBENCH_SYSTEM_NAME,
      {taskbench_mpi::expect_ranks_flag(),
       {"-worker", "N",
        "OpenMP threads per rank (default: OMP_NUM_THREADS, else the cores the rank is bound to)",
        1, taskbench::kMaxWorkerThreads}}};
  taskbench::App app(argc, argv, options);
  // Not omp_get_max_threads() by default: that counts every core of the machine even when
  // mpirun has bound this rank to one, and all ranks would then oversubscribe the node.
  long threads = app.flag("-worker", 0);
  if (threads == 0)
    threads = std::getenv("OMP_NUM_THREADS") ? omp_get_max_threads() : taskbench::available_cores();
  omp_set_num_threads(static_cast<int>(threads));
  // Only the main thread calls MPI, and never inside a parallel region: FUNNELED is the level
  // the MPI standard asks of a process that has other threads (the original called MPI_Init).
  taskbench_mpi::Session session(app, argc, argv,
                                 threads == 1 ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED);
  app.set_parallelism(session.size(), threads);
  app.display();
  const auto graphs = taskbench_mpi::make_rank_graphs(app.graphs(), session.rank(), session.size());
  const double elapsed = taskbench_mpi::run_as_the_paper(
      session, graphs, taskbench_mpi::StepBarrier::none,
      [](const taskbench_mpi::RankGraph& g, long t, const taskbench_mpi::StepPlan& plan) {
        const long n = static_cast<long>(plan.tasks.size());
#pragma omp parallel for schedule(runtime)
        for (long k = 0; k < n; ++k) g.run(t, plan, plan.tasks[k]);
      });
  taskbench_mpi::check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}
