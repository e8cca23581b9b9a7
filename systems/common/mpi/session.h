// What every MPI system does around its loop: start-up checks, the timed region, the report.
#pragma once

#include <mpi.h>

#include "taskbench/app.h"

namespace taskbench_mpi {

// -expect-ranks N: the rank count the launch must have produced. A launch that does not join
// its processes into one job (a launcher of another MPI, a missing mpirun) starts N singleton
// jobs that would each run the whole graph and report plausible figures; this catches it.
taskbench::SystemFlag expect_ranks_flag();

class Session {
 public:
  // Initialises MPI with the given thread level and tells the app its rank. Every rank stops
  // with one line and exit status 2 when MPI_COMM_WORLD's size is not -expect-ranks, or when an
  // output does not fit one message (2 GiB). All ranks see the same flags and size, so all of
  // them take the same branch and can finalize together.
  Session(taskbench::App& app, int& argc, char**& argv, int thread_level);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Barrier, start, work, barrier, stop: all ranks start together and the time includes the
  // slowest one.
  template <class Work>
  double timed(Work&& work) const {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    work();
    MPI_Barrier(MPI_COMM_WORLD);
    return now() - start;
  }

  // Under SimGrid the simulated platform's clock (this machine's would time the simulator).
  static double now() {
#if defined(SMPI_H)
    return MPI_Wtime();
#else
    return taskbench::wall_time();
#endif
  }

  // Sums the graphs' executed-task and checked-output counts over the ranks (every rank waits
  // for all of them); rank 0 checks that every task ran once and every last-timestep output was
  // checked once, and prints the report.
  void report(double elapsed) const;

 private:
  [[noreturn]] void fail(const char* format, ...) const;
  void report_hosts(long long tasks) const;

  taskbench::App& app_;
  int rank_ = 0, size_ = 1;
};

}  // namespace taskbench_mpi
