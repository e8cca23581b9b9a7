// mpi_openmp: ranks x threads. Messages as in mpi_p2p, sent and received by the master thread
// only (MPI_THREAD_FUNNELED); each step's tasks of a rank are shared out by an OpenMP
// worksharing loop. One parallel region for the whole run; per step: master completes the
// previous step's sends, posts this step's messages and waits for the receives; barrier; the
// threads share the tasks; barrier (so the master sends only finished outputs). A step with no
// message in or out of this rank skips the master's part and its barrier, so one rank x N
// threads costs one barrier per step, as openmp_for.
#include <omp.h>

#include <cstdlib>
#include <vector>

#include "rank_graph.h"
#include "session.h"
#include "taskbench/point_buffers.h"

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
  // FUNNELED makes Open MPI lock a mutex around every call (about 15% of a step's time);
  // with one thread the process never has a second thread, so SINGLE is exact.
  taskbench_mpi::Session session(app, argc, argv,
                                 threads == 1 ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED);
  app.set_parallelism(session.size(), threads);
  app.display();
  const auto graphs = taskbench_mpi::make_rank_graphs(app.graphs(), session.rank(), session.size());
  const long steps = taskbench::max_timesteps(app.graphs());

  const double elapsed = session.timed([&] {
#pragma omp parallel
    {
      // libgomp's barrier makes a futex syscall even in a team of one: skip it there.
      const bool team = omp_get_num_threads() > 1;
      bool sent_last_step = false;  // its sends read the field this step's tasks write
      for (long t = 0; t < steps; ++t) {
        // Every thread computes the same answer: the plans are shared and read-only.
        bool messages = false;
        for (auto& g : graphs)
          if (g->has_step(t)) messages = messages || g->plan(t).has_messages();
        const bool exchange = messages || sent_last_step;
        if (exchange) {
#pragma omp master
          {
            for (auto& g : graphs) g->wait_sends();
            for (auto& g : graphs)
              if (g->has_step(t)) g->post(g->plan(t));
            for (auto& g : graphs) g->wait_receives();
          }
          // A step without messages (a single rank, or a pattern's local rows) needs only the
          // barrier that closed the last one: the previous rows' outputs are complete.
          if (team) {
#pragma omp barrier
          }
        }
        sent_last_step = false;
        for (auto& g : graphs)
          if (g->has_step(t)) sent_last_step = sent_last_step || !g->plan(t).sends.empty();
        for (auto& g : graphs) {
          if (!g->has_step(t)) continue;
          const taskbench_mpi::StepPlan& plan = g->plan(t);
          const long n = static_cast<long>(plan.tasks.size());
#pragma omp for schedule(static) nowait
          for (long k = 0; k < n; ++k) g->run(t, plan, plan.tasks[k]);
        }
        if (team) {
#pragma omp barrier
        }
      }
    }
    for (auto& g : graphs) g->wait_sends();
  });
  taskbench_mpi::check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}
