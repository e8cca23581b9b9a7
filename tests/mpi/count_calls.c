/* A rank's MPI calls, counted through the MPI profiling interface: preloaded into an MPI
 * system's ranks (LD_PRELOAD), it wraps the calls the MPI systems communicate and synchronise
 * with and, at MPI_Finalize, writes one line to $TASKBENCH_MPI_COUNTS/rank-<rank>:
 * "barrier N isend N irecv N waitall N" (tests/e2e/test_mpi_algorithm.py reads it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long barriers, isends, irecvs, waitalls;

int MPI_Barrier(MPI_Comm comm) {
  ++barriers;
  return PMPI_Barrier(comm);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  ++isends;
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  ++irecvs;
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  ++waitalls;
  return PMPI_Waitall(count, requests, statuses);
}

int MPI_Finalize(void) {
  const char* folder = getenv("TASKBENCH_MPI_COUNTS");
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (folder != NULL) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d", folder, rank);
    FILE* f = fopen(path, "w");
    if (f != NULL) {
      fprintf(f, "barrier %ld isend %ld irecv %ld waitall %ld\n", barriers, isends, irecvs, waitalls);
      fclose(f);
    }
  }
  return PMPI_Finalize();
}
