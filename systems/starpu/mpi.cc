// starpu_mpi: StarPU-MPI over Open MPI. Every rank registers a handle for every output and
// scratch buffer, with memory only for the columns it owns (a block of columns per rank) and
// starpu_mpi_data_register naming the owner. Every rank submits every task with
// starpu_mpi_task_insert: the rank owning a task's output runs it, and StarPU-MPI infers from
// the access modes which outputs must cross ranks, sending them from their owner and receiving
// them (cached until overwritten) on the rank that runs the consumer. See README.md.
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
  // StarPU-MPI keeps a core of its own for its progress thread: under mpirun's one core per
  // rank, StarPU's own default would leave no worker (starpu_mpi_init_conf fails, -ENODEV).
  const long asked = app.flag("-worker", 0);
  const long workers = asked > 0 || std::getenv("STARPU_NCPU") ? asked : 1;
  starpu_conf conf = taskbench_starpu::cpu_only_conf(workers);
  if (int error = starpu_mpi_init_conf(&argc, &argv, /*initialize_mpi=*/0, MPI_COMM_WORLD, &conf);
      error != 0) {
    std::fprintf(stderr, "%s: starpu_mpi_init_conf failed: %s\n", TASKBENCH_SYSTEM_NAME, std::strerror(-error));
    return 2;
  }
  taskbench_starpu::check_workers(app, workers);
  app.set_parallelism(session.size(), starpu_cpu_worker_get_count());
  app.add_report_json("starpu_scheduler", "\"" + taskbench_starpu::scheduler_name() + "\"");
  app.display();

  constexpr int kFields = 2;  // as in main.cc: StarPU orders each overwrite after its readers
  std::vector<std::unique_ptr<taskbench::PointBuffers>> buffers;
  std::vector<std::unique_ptr<taskbench_starpu::GraphHandles>> handles;
  starpu_mpi_tag_t next_tag = 0;  // the same sequence on every rank: a handle's tag names it
  for (const taskbench::TaskGraph& g : app.graphs()) {
    const long width = g.max_width();
    const int rank = session.rank(), ranks = session.size();
    buffers.push_back(std::make_unique<taskbench::PointBuffers>(g, kFields));
    handles.push_back(std::make_unique<taskbench_starpu::GraphHandles>(
        *buffers.back(), kFields, [&](long i) { return owner(i, width, ranks) == rank; }));
    handles.back()->for_each([&](starpu_data_handle_t h, long i) {
      starpu_mpi_data_register(h, next_tag++, owner(i, width, ranks));
    });
  }

  starpu_mpi_barrier(MPI_COMM_WORLD);
  const double start = taskbench::wall_time();
  taskbench_starpu::submit_all(handles, [](const taskbench_starpu::PointTask& task,
                                           starpu_data_descr* data, size_t n) {
    taskbench_starpu::check_submitted(
        starpu_mpi_task_insert(MPI_COMM_WORLD, taskbench_starpu::point_codelet(), STARPU_VALUE,
                               &task, sizeof task, STARPU_DATA_MODE_ARRAY, data,
                               static_cast<int>(n), 0),
        "starpu_mpi_task_insert");
  });
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
  session.report(elapsed);
  return 0;
}
