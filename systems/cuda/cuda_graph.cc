// cuda_graph: cuda's launches (column_streams.h) captured once per window of rows into a CUDA
// graph, instantiated before timing and replayed: the persistent task graph of the papers, on
// the GPU. A window is -window rows rounded up to a multiple of the pattern's period and of the
// output ring's two rows, so that one capture serves every window of the same shape; tasks read
// their timestep as (row in the window) + the window's first row, which a copy before each
// replay sets. Replays of one graph follow each other on one stream: a window's tasks never
// wait for an earlier window's by events. The build is timed apart and reported.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "column_streams.h"
#include "taskbench/app.h"
#include "taskbench/point_buffers.h"

namespace gpu = taskbench::gpu;
using gpu::check;

namespace {

struct Replay {
  cudaGraphExec_t exec;
  long first_row, end_row;
};

// One task graph's windows, captured and ready to replay.
class WindowedGraph {
 public:
  WindowedGraph(const taskbench::TaskGraph& g, long window_rows)
      : columns_(g), window_(window_rows) {
    check(cudaStreamCreateWithFlags(&origin_, cudaStreamNonBlocking), "cudaStreamCreate");
    row_base_ = reinterpret_cast<long*>(gpu::device_alloc(sizeof(long), "the window's first row"));
  }
  ~WindowedGraph() {
    for (auto& [shape, exec] : captured_) cudaGraphExecDestroy(exec);
    cudaFreeHost(bases_);
    cudaFree(row_base_);
    cudaStreamDestroy(origin_);
  }

  const gpu::TaskLauncher& launcher() const { return columns_.launcher(); }
  const gpu::DeviceBuffers& buffers() const { return columns_.buffers(); }
  long windows() const { return static_cast<long>(replays_.size()); }
  long captures() const { return static_cast<long>(captured_.size()); }
  long nodes() const { return nodes_; }

  // Captures every distinct window shape and instantiates it (outside the timed region).
  void build() {
    const taskbench::TaskGraph& g = launcher().graph();
    for (long first = 0; first < g.timesteps(); first += window_) {
      const long end = std::min(first + window_, g.timesteps());
      std::vector<long> shape{first == 0, end - first};
      for (long t = first; t < end; ++t) shape.insert(shape.end(), {g.offset(t), g.width(t), g.dependence_set(t)});
      auto found = captured_.find(shape);
      if (found == captured_.end()) found = captured_.emplace(shape, capture(first, end)).first;
      replays_.push_back({found->second, first, end});
    }
    check(cudaMallocHost(reinterpret_cast<void**>(&bases_), replays_.size() * sizeof(long)), "cudaMallocHost");
    for (size_t k = 0; k < replays_.size(); ++k) bases_[k] = replays_[k].first_row;
    for (auto& [shape, exec] : captured_) check(cudaGraphUpload(exec, origin_), "cudaGraphUpload");
    check(cudaStreamSynchronize(origin_), "cudaStreamSynchronize");
  }

  void replay(long k) {
    const Replay& r = replays_[k];
    gpu::before_rows(launcher().graph().index(), r.first_row, r.end_row);
    check(cudaMemcpyAsync(row_base_, &bases_[k], sizeof(long), cudaMemcpyHostToDevice, origin_), "cudaMemcpyAsync");
    check(cudaGraphLaunch(r.exec, origin_), "cudaGraphLaunch");
  }

 private:
  cudaGraphExec_t capture(long first, long end) {
    check(cudaStreamBeginCapture(origin_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    columns_.fork_from(origin_);
    for (long t = first; t < end; ++t) columns_.issue_row(t, first, row_base_);
    columns_.join_into(origin_);
    cudaGraph_t graph;
    check(cudaStreamEndCapture(origin_, &graph), "cudaStreamEndCapture");
    size_t n = 0;
    check(cudaGraphGetNodes(graph, nullptr, &n), "cudaGraphGetNodes");
    nodes_ += static_cast<long>(n);
    cudaGraphExec_t exec;
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    check(cudaGraphDestroy(graph), "cudaGraphDestroy");
    return exec;
  }

  ColumnStreams columns_;
  long window_;
  cudaStream_t origin_ = nullptr;
  long* row_base_ = nullptr;  // device: the first row of the window being replayed
  long* bases_ = nullptr;     // pinned host: every replay's first row, copied from
  std::map<std::vector<long>, cudaGraphExec_t> captured_;
  std::vector<Replay> replays_;
  long nodes_ = 0;
};

// -window rounded up to a multiple of the pattern's period and of the ring's rows.
long window_rows(const taskbench::TaskGraph& g, long requested) {
  const long period = std::lcm(g.dependence_sets(), ColumnStreams::kRingRows);
  return std::max(1L, (requested + period - 1) / period) * period;
}

}  // namespace

int main(int argc, char** argv) {
  taskbench::App app(argc, argv, {TASKBENCH_SYSTEM_NAME,
                                  {{"-window", "ROWS", "rows per captured window, rounded up to a multiple "
                                    "of the pattern's period and 2 (default 16)", 1, 1L << 20}}});
  gpu::require_device(app);
  std::vector<std::unique_ptr<WindowedGraph>> graphs;
  long widest = 1, rows = 0;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    const long window = window_rows(g, app.flag("-window", 16));
    graphs.push_back(std::make_unique<WindowedGraph>(g, window));
    widest = std::max(widest, g.max_width());
    rows = std::max(rows, window);
  }
  app.set_parallelism(1, widest);  // docs/gpu.md: a GPU system's cores are its task slots
  app.display();

  const double build_start = taskbench::wall_time();
  long nodes = 0, replays = 0, windows = 0;
  for (auto& g : graphs) {
    g->build();
    nodes += g->nodes();
    windows = std::max(windows, g->windows());
    replays += g->windows();
  }
  gpu::synchronize();
  gpu::note_build(app, taskbench::wall_time() - build_start, rows, nodes, replays);

  const double start = taskbench::wall_time();
  for (long k = 0; k < windows; ++k)
    for (auto& g : graphs)
      if (k < g->windows()) g->replay(k);
  gpu::synchronize();
  const double elapsed = taskbench::wall_time() - start;
  for (auto& g : graphs) gpu::check_last_row(g->launcher().graph(), g->buffers());

  std::vector<const gpu::TaskLauncher*> launchers;
  for (auto& g : graphs) launchers.push_back(&g->launcher());
  gpu::report(app, elapsed, launchers);
  return 0;
}
