// mpi_cuda and mpi_cuda_resident: the Task Bench paper's MPI+CUDA (Fig. 13). Ranks own blocks
// of columns, as mpi_bulk's, and run their tasks on the GPU; every message goes through the
// host. -resident keeps outputs on the device between steps and copies only what other ranks
// read; without it, the paper's offload model copies every input in and every output out at
// every step. Ranks sharing one GPU are the paper's w1 (1 rank per GPU), w4 (4), ...
#include <algorithm>
#include <memory>
#include <vector>

#include "gpu_rank_graph.h"
#include "session.h"
#include "taskbench/point_buffers.h"

namespace gpu = taskbench::gpu;

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME,
                                  {taskbench_mpi::expect_ranks_flag(),
                                   {"-resident", "", "keep outputs on the device; copy only what other ranks read"}}});
  taskbench_mpi::Session session(app, argc, argv, MPI_THREAD_SINGLE);
  gpu::require_device(app);
  const bool resident = app.flag("-resident", 0) != 0;
  std::vector<std::unique_ptr<GpuRankGraph>> graphs;
  long slots = 1;  // docs/gpu.md: a GPU system's cores are its task slots, here per rank
  for (const taskbench::TaskGraph& g : app.graphs()) {
    graphs.push_back(std::make_unique<GpuRankGraph>(g, session.rank(), session.size(), resident));
    slots = std::max(slots, (g.max_width() + session.size() - 1) / session.size());
  }
  app.set_parallelism(session.size(), slots);
  app.add_report_json("gpu_data", resident ? "\"resident\"" : "\"offload\"");
  app.display();
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
  // Per graph: tasks executed, then last-timestep outputs checked, summed in one all-reduce (no
  // rank finalizes before every rank checked its last row: taskbench_mpi::Session::report).
  std::vector<long long> local = gpu::executed_per_graph(app, launchers);
  const size_t n = local.size();
  for (const taskbench::TaskGraph& g : app.graphs()) local.push_back(app.local_last_row_checked(g.index()));
  std::vector<long long> total(local.size(), 0);
  MPI_Allreduce(local.data(), total.data(), static_cast<int>(local.size()), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  app.report(elapsed, std::vector<long long>(total.begin(), total.begin() + n),
             std::vector<long long>(total.begin() + n, total.end()));
  graphs.clear();  // before MPI_Finalize: each holds a communicator
  return 0;
}
