// mpi_bulk: the Task Bench paper's bulk-synchronous MPI port (the original's
// mpi/bulk_synchronous.cc): mpi_p2p's exchange, then a barrier of all ranks (MPI_Barrier on
// MPI_COMM_WORLD) every timestep before the step's tasks run.
#include "paper_loop.h"

int main(int argc, char** argv) {
  return taskbench_mpi::single_thread_main(TASKBENCH_SYSTEM_NAME, argc, argv, taskbench_mpi::StepBarrier::all_ranks);
}
