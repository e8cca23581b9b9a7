// mpi_p2p: the Task Bench paper's MPI port (the original's mpi/nonblock.cc), communicating
// sequential processes. Each rank owns a block of columns. Per timestep it posts a receive for
// every input of its tasks that another rank produces, copies the inputs it produces itself,
// posts a send of each previous output to every consumer on another rank (nonblocking), waits
// for all of them, then runs its tasks. Graphs given with -and run one after the other.
#include "paper_loop.h"

int main(int argc, char** argv) {
  return taskbench_mpi::single_thread_main(TASKBENCH_SYSTEM_NAME, argc, argv, taskbench_mpi::StepBarrier::none);
}
