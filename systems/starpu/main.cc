// starpu_local: StarPU without its MPI layer. One StarPU task per point, submitted by the main
// thread with starpu_task_insert: the call StarPU's non-MPI users write, cheaper per task than
// the paper's starpu_mpi_task_insert (the `starpu` entry, mpi.cc; README.md measures both). Each
// output buffer is a registered data handle; StarPU infers every dependency from the tasks'
// access modes and its scheduler (STARPU_SCHED, default lws) runs the ready tasks on -worker CPU
// workers.
#include <starpu.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "graph_handles.h"
#include "runtime_setup.h"
#include "submit.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME, {taskbench_starpu::worker_flag()}});
  const long workers = app.flag("-worker", 0);
  starpu_conf conf = taskbench_starpu::cpu_only_conf(workers);
  if (int error = starpu_init(&conf); error != 0) {
    std::fprintf(stderr, "%s: starpu_init failed (%d)\n", TASKBENCH_SYSTEM_NAME, error);
    return 2;
  }
  app.set_parallelism(1, taskbench_starpu::check_workers(app, workers, conf));
  app.add_report_json("starpu_scheduler", "\"" + taskbench_starpu::scheduler_name() + "\"");
  app.display();

  // Two output fields per column: task (t, i) writes field t mod 2 while row t-1's stays
  // readable; StarPU orders the overwrite after the readers (write-after-read).
  constexpr int kFields = 2;
  std::vector<std::unique_ptr<taskbench::PointBuffers>> buffers;
  std::vector<std::unique_ptr<taskbench_starpu::GraphHandles>> handles;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    buffers.push_back(std::make_unique<taskbench::PointBuffers>(g, kFields));
    handles.push_back(std::make_unique<taskbench_starpu::GraphHandles>(
        *buffers.back(), kFields, [](long) { return true; }, STARPU_W));
  }

  long submitted = 0;
  const double start = taskbench::wall_time();
  taskbench_starpu::submit_all(handles, [&](const taskbench_starpu::PointTask& task,
                                            starpu_data_descr* data, size_t n) {
    taskbench_starpu::check_submitted(
        starpu_task_insert(taskbench_starpu::point_codelet(), STARPU_VALUE, &task, sizeof task,
                           STARPU_DATA_MODE_ARRAY, data, static_cast<int>(n), 0),
        "starpu_task_insert");
    ++submitted;
  });
  const double submission = taskbench::wall_time() - start;
  starpu_task_wait_for_all();
  const double elapsed = taskbench::wall_time() - start;

  handles.clear();  // unregister before shutdown: brings every output home
  for (const auto& b : buffers) b->check_last_row();
  starpu_shutdown();
  taskbench_starpu::remove_temporary_home();
  taskbench_starpu::report_submission(app, submitted, submission);
  app.report(elapsed);
  return 0;
}
