/* The floor of mpi_p2p with one column per rank, measured with bare MPI calls and nothing else:
 *   exchange: both ranks send one 16-byte message per step and wait for the other's (the
 *             calls mpi_p2p makes: MPI_Isend, MPI_Irecv, wait for both);
 *   one-way:  half a ping-pong round trip, the latency any dependent step must wait.
 * mpi_systems.sh compiles it with each implementation's wrapper and prints it beside the
 * systems. Usage: mpirun -np 2 exchange_floor [steps [reps]]: the best of reps runs (default
 * 1000 steps, 10 runs, as mpi_systems.sh's system runs), in us per step: "exchange one-way". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double timed_loop(int rank, long steps, int ping_pong) {
  char out[16] = {0}, in[16];
  const int peer = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long s = 0; s < steps; ++s) {
    if (ping_pong) {
      if (rank == 0) MPI_Send(out, 16, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(in, 16, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank == 1) MPI_Send(out, 16, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    } else {
      MPI_Request requests[2];
      MPI_Status statuses[2];
      MPI_Isend(out, 16, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(in, 16, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &requests[1]);
      MPI_Waitall(2, requests, statuses);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return (MPI_Wtime() - start) / steps / (ping_pong ? 2 : 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "exchange_floor: needs exactly 2 ranks, got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  const long steps = argc > 1 ? atol(argv[1]) : 1000;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  double best[2] = {1e30, 1e30};
  for (int rep = 0; rep < reps; ++rep)
    for (int ping_pong = 0; ping_pong < 2; ++ping_pong) {
      const double t = timed_loop(rank, steps, ping_pong);
      if (t < best[ping_pong]) best[ping_pong] = t;
    }
  if (rank == 0) printf("%.3f %.3f\n", best[0] * 1e6, best[1] * 1e6);
  MPI_Finalize();
  return 0;
}
