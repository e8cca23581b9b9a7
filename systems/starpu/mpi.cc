// The paper's StarPU port (the original's starpu/main.cc, published as starpu13), over Open MPI:
// the `starpu` entry runs it as one rank per host with its cores as CPU workers (the paper's
// layout), `starpu_mpi` as a rank per core. Every rank registers a handle for every output
// buffer, with memory only for the columns it owns (a block of columns per rank) and
// starpu_mpi_data_register naming the owner. The main thread of every rank walks every task and
// submits, with starpu_mpi_task_insert, those it has a part in (the original's pruning): the
// rank owning a task's output runs it, and StarPU-MPI infers from the access modes which
// outputs must cross ranks, sending them from their owner and receiving them (cached until
// overwritten) on the rank that runs the consumer. One wait for everything at the end. See
// README.md.
#include <starpu.h>
#include <starpu_mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "graph_handles.h"
#include "runtime_setup.h"
#include "session.h"
#include "submit.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace {

// Column i of a graph `width` wide belongs to rank i * ranks / width: contiguous blocks, so a
// stencil crosses ranks only at block edges.
int owner(long column, long width, int ranks) {
  return static_cast<int>(column * ranks / width);
}

// The original's pruning of starpu_mpi_task_insert: a rank submits a task only when it owns the
// task's output (it runs it), holds a received copy of that output (which the insert must
// invalidate), or owns one of its inputs (which it must send). StarPU-MPI would do nothing for
// the others, at the cost of a full insert each. data[0] is the output (GraphHandles).
bool has_part(int rank, const starpu_data_descr* data, size_t n) {
  if (starpu_mpi_data_get_rank(data[0].handle) == rank || starpu_mpi_cached_receive(data[0].handle))
    return true;
  for (size_t k = 1; k < n; ++k)
    if (starpu_mpi_data_get_rank(data[k].handle) == rank) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv,
                     {TASKBENCH_SYSTEM_NAME,
                      {taskbench_starpu::worker_flag("STARPU_NCPU, or 1"),
                       taskbench_mpi::expect_ranks_flag()}});
  // -width's default is 4, as for the other MPI systems: the cores one rank sees (mpirun binds
  // each to its own) say nothing of the whole run's.
  // StarPU-MPI makes every MPI call from its own progress thread, and the main thread only
  // after starpu_mpi_shutdown: serialized calls suffice.
  taskbench_mpi::Session session(app, argc, argv, MPI_THREAD_SERIALIZED);
  // Left to its own default StarPU-MPI keeps a core for its progress thread: under mpirun's one
  // core per rank that leaves no worker (starpu_mpi_init_conf fails, -ENODEV), hence 1 without
  // -worker. The harness always passes -worker (the paper's -core N): with an explicit count
  // StarPU-MPI reserves nothing, as in the original, which started StarPU before StarPU-MPI;
  // STARPU_RESERVE_NCPU reserves cores as the paper's script did (check_workers).
  const long asked = app.flag("-worker", 0);
  const long workers = asked > 0 || std::getenv("STARPU_NCPU") ? asked : 1;
  starpu_conf conf = taskbench_starpu::cpu_only_conf(workers);
  if (int error = starpu_mpi_init_conf(&argc, &argv, /*initialize_mpi=*/0, MPI_COMM_WORLD, &conf);
      error != 0) {
    std::fprintf(stderr, "%s: starpu_mpi_init_conf failed: %s\n", TASKBENCH_SYSTEM_NAME, std::strerror(-error));
    return 2;
  }
  app.set_parallelism(session.size(), taskbench_starpu::check_workers(app, workers, conf));
  app.add_report_json("starpu_scheduler", "\"" + taskbench_starpu::scheduler_name() + "\"");
  app.display();

  constexpr int kFields = 2;  // the original's -field 2: StarPU orders each overwrite after its readers
  std::vector<std::unique_ptr<taskbench::PointBuffers>> buffers;
  std::vector<std::unique_ptr<taskbench_starpu::GraphHandles>> handles;
  starpu_mpi_tag_t next_tag = 0;  // the same sequence on every rank: a handle's tag names it
  for (const taskbench::TaskGraph& g : app.graphs()) {
    const long width = g.max_width();
    const int rank = session.rank(), ranks = session.size();
    buffers.push_back(std::make_unique<taskbench::PointBuffers>(g, kFields));
    handles.push_back(std::make_unique<taskbench_starpu::GraphHandles>(
        *buffers.back(), kFields, [&](long i) { return owner(i, width, ranks) == rank; }, STARPU_RW));
    handles.back()->for_each([&](starpu_data_handle_t h, long i) {
      starpu_mpi_data_register(h, next_tag++, owner(i, width, ranks));
    });
  }

  long submitted = 0;
  starpu_mpi_barrier(MPI_COMM_WORLD);
  const double start = taskbench::wall_time();
  taskbench_starpu::submit_all(handles, [&, rank = session.rank()](
                                            const taskbench_starpu::PointTask& task,
                                            starpu_data_descr* data, size_t n) {
    if (!has_part(rank, data, n)) return;
    taskbench_starpu::check_submitted(
        starpu_mpi_task_insert(MPI_COMM_WORLD, taskbench_starpu::point_codelet(), STARPU_VALUE,
                               &task, sizeof task, STARPU_DATA_MODE_ARRAY, data,
                               static_cast<int>(n), 0),
        "starpu_mpi_task_insert");
    ++submitted;
  });
  const double submission = taskbench::wall_time() - start;
  starpu_mpi_wait_for_all(MPI_COMM_WORLD);  // this rank's tasks and messages
  starpu_mpi_barrier(MPI_COMM_WORLD);       // and every other rank's
  const double elapsed = taskbench::wall_time() - start;

  handles.clear();  // unregister before shutdown: brings every output home
  for (const auto& b : buffers) {  // the columns this rank holds
    const taskbench::TaskGraph& g = b->graph();
    const long t = g.timesteps() - 1;
    for (long i = g.offset(t), end = i + g.width(t); i < end; ++i)
      if (owner(i, g.max_width(), session.size()) == session.rank())
        g.check_unread_output(t, i, b->output(t, i), g.output_bytes());
  }
  starpu_mpi_shutdown();
  taskbench_starpu::remove_temporary_home();
  taskbench_starpu::report_submission(app, submitted, submission);
  session.report(elapsed);
  return 0;
}
