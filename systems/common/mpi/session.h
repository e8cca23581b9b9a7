// What every MPI system does around its loop: start-up checks, the timed region, the report.
#pragma once

#include <mpi.h>

#include "taskbench/app.h"
#include "taskbench/worker.h"

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

  // The timed region of the paper's MPI ports: the whole run twice, each timed as above, the
  // second run's time reported. The first warms up what a first run pays once (the MPI
  // library's connections and buffers, first touches of the rank's memory); its task counts
  // and trace events are discarded, so the report counts and checks the second run alone.
  // Under SimGrid one run: the simulated platform has no first-run costs (the two runs'
  // simulated times agreed to 7 digits, 64 ranks of cori, mpi_p2p and mpi_bulk), and the
  // second would double the simulation's wall time.
  template <class Work>
  double timed_as_the_paper(Work&& work) const {
#if !defined(SMPI_H)
    timed(work);
    taskbench::worker::reset();
#endif
    return timed(work);
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
