// The whole main() of an MPI system whose one thread per rank runs each timestep as one step:
// the App, the session (MPI_THREAD_SINGLE), this rank's graphs, `step(t, graphs)` for every
// timestep inside the timed region, then the last rows' check and the summed report. mpi_p2p
// and mpi_bulk differ only in their step. A template, so that the step is inlined in the loop.
#pragma once

#include <memory>
#include <vector>

#include "rank_graph.h"
#include "session.h"
#include "taskbench/point_buffers.h"

namespace taskbench_mpi {

using RankGraphs = std::vector<std::unique_ptr<RankGraph>>;

template <class Step>
int stepped_main(const char* system, int argc, char** argv, Step step) {
  taskbench::App app(argc, argv, {system, {expect_ranks_flag()}});
  Session session(app, argc, argv, MPI_THREAD_SINGLE);
  app.display();
  const RankGraphs graphs = make_rank_graphs(app.graphs(), session.rank(), session.size());
  const long steps = taskbench::max_timesteps(app.graphs());
  const double elapsed = session.timed([&] {
    for (long t = 0; t < steps; ++t) step(t, graphs);
  });
  check_last_rows(graphs);
  session.report(elapsed);
  return 0;
}

}  // namespace taskbench_mpi
