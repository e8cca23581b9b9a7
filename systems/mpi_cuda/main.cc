// mpi_cuda: the Task Bench paper's MPI+CUDA (Fig. 13; the original's mpi_gpu/nonblock_gpu.cc
// on its `cuda` branch). The paper's MPI loop (systems/common/mpi: each rank owns a block of
// columns; per timestep a message per dependence edge that crosses ranks, local inputs copied,
// one wait for all, then the rank's tasks), each task offloaded in turn (offload_tasks.h: its
// data to the GPU, the kernel, its data back, a wait after each). The graphs of a run one after
// the other; the whole run twice, the second timed. Ranks sharing the GPU are the paper's w1
// (1 rank per GPU), w4 (4), ...
// -resident (mpi_cuda_resident, a design of ours): outputs stay on the device, a row's tasks run
// side by side over several streams, and only what other ranks read goes through the host
// (gpu_rank_graph.h).
#include <algorithm>
#include <memory>
#include <vector>

#include "gpu_rank_graph.h"
#include "layout.h"
#include "offload_tasks.h"
#include "rank_graph.h"
#include "session.h"
#include "taskbench/point_buffers.h"

namespace gpu = taskbench::gpu;

namespace {

// Per graph: tasks executed (counted on the device), then last-timestep outputs checked, summed
// in one all-reduce (no rank finalizes before every rank checked its last row, as
// taskbench_mpi::Session::report).
void report(taskbench::App& app, double elapsed, const std::vector<long long>& executed) {
  std::vector<long long> local = executed;
  const size_t n = local.size();
  for (const taskbench::TaskGraph& g : app.graphs()) local.push_back(app.local_last_row_checked(g.index()));
  std::vector<long long> total(local.size(), 0);
  MPI_Allreduce(local.data(), total.data(), static_cast<int>(local.size()), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  app.report(elapsed, std::vector<long long>(total.begin(), total.begin() + n),
             std::vector<long long>(total.begin() + n, total.end()));
}

// The paper's offload: returns the second run's time, and its executed tasks in `executed`.
double run_offload(taskbench::App& app, const taskbench_mpi::Session& session, std::vector<long long>& executed) {
  const auto graphs = taskbench_mpi::make_rank_graphs(app.graphs(), session.rank(), session.size());
  std::vector<std::unique_ptr<OffloadTasks>> tasks;
  std::vector<const gpu::TaskLauncher*> launchers;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    tasks.push_back(std::make_unique<OffloadTasks>(g));
    launchers.push_back(&tasks.back()->launcher());
  }
  cudaStream_t stream;  // the rank's one stream, as the original's
  gpu::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  gpu::synchronize();

  const auto one_run = [&] {
    for (size_t k = 0; k < graphs.size(); ++k) {
      const taskbench::TaskGraph& g = app.graphs()[k];
      const taskbench_mpi::Layout layout(g.max_width(), session.size());
      for (long t = 0; t < g.timesteps(); ++t) {
        gpu::before_rows(g.index(), t, t + 1, layout.first(session.rank()), layout.end(session.rank()));
        const taskbench_mpi::StepPlan& plan = graphs[k]->plan(t);
        graphs[k]->exchange(plan);
        for (const taskbench_mpi::TaskPlan& task : plan.tasks) tasks[k]->run(stream, t, plan, task);
      }
    }
  };
  // The original's timed region (Session::timed_as_the_paper): the whole run twice, the second
  // timed. The device counts the tasks: the first run's are read, and left out of the report.
  session.timed(one_run);
  const std::vector<long long> first = gpu::executed_per_graph(app, launchers);
  taskbench::worker::reset();
  const double elapsed = session.timed(one_run);

  taskbench_mpi::check_last_rows(graphs);
  executed = gpu::executed_per_graph(app, launchers);
  for (size_t k = 0; k < executed.size(); ++k) executed[k] -= first[k];
  gpu::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return elapsed;  // graphs go before MPI_Finalize: each holds a communicator
}

// mpi_cuda_resident: one timed run, a row of every graph per step.
double run_resident(taskbench::App& app, const taskbench_mpi::Session& session, std::vector<long long>& executed) {
  std::vector<std::unique_ptr<GpuRankGraph>> graphs;
  for (const taskbench::TaskGraph& g : app.graphs())
    graphs.push_back(std::make_unique<GpuRankGraph>(g, session.rank(), session.size()));
  gpu::synchronize();
  const long steps = taskbench::max_timesteps(app.graphs());
  const double elapsed = session.timed([&] {
    for (long t = 0; t < steps; ++t)
      for (auto& g : graphs) {
        gpu::before_rows(g->launcher().graph().index(), t, t + 1, g->first_column(), g->end_column());
        g->step(t);
      }
  });
  for (auto& g : graphs) g->check_last_row();
  std::vector<const gpu::TaskLauncher*> launchers;
  for (auto& g : graphs) launchers.push_back(&g->launcher());
  executed = gpu::executed_per_graph(app, launchers);
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME,
                                  {taskbench_mpi::expect_ranks_flag(),
                                   {"-resident", "", "keep outputs on the device; copy only what other ranks read"}}});
  taskbench_mpi::Session session(app, argc, argv, MPI_THREAD_SINGLE);
  gpu::require_device(app);
  const bool resident = app.flag("-resident", 0) != 0;
  long slots = 1;  // docs/gpu.md: a GPU system's cores are its task slots, here per rank
  for (const taskbench::TaskGraph& g : app.graphs())
    slots = std::max(slots, (g.max_width() + session.size() - 1) / session.size());
  app.set_parallelism(session.size(), slots);
  app.add_report_json("gpu_data", resident ? "\"resident\"" : "\"offload\"");
  app.display();

  std::vector<long long> executed;
  const double elapsed = resident ? run_resident(app, session, executed) : run_offload(app, session, executed);
  report(app, elapsed, executed);
  return 0;
}
