#include "gpu_rank_graph.h"

#include <algorithm>
#include <climits>

using taskbench::gpu::check;

namespace {

// Enough streams for the rank's tasks of a row to run side by side; each launch is one warp.
constexpr long kMaxStreams = 16;

}  // namespace

GpuRankGraph::GpuRankGraph(const taskbench::TaskGraph& g, int rank, int ranks)
    : graph_(g), rank_(rank), layout_(g.max_width(), ranks), first_(layout_.first(rank)),
      end_(layout_.end(rank)), width_(g.max_width()),
      stride_(taskbench::gpu::slot_bytes(g)), launcher_(g), device_(g, 2),
      intervals_(std::max(1L, g.max_intervals())), requested_(width_, 0) {
  check(cudaMallocHost(reinterpret_cast<void**>(&host_), 2 * width_ * stride_), "cudaMallocHost");
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);  // this graph's messages never match another graph's
  streams_.resize(std::clamp(end_ - first_, 1L, kMaxStreams));
  events_.resize(streams_.size());
  for (cudaStream_t& s : streams_) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  for (cudaEvent_t& e : events_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  inputs_.reserve(g.max_dependencies());
}

GpuRankGraph::~GpuRankGraph() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  cudaFreeHost(host_);
  MPI_Comm_free(&comm_);
}

void GpuRankGraph::copy(long r, long from, long to, cudaMemcpyKind kind) {
  if (from >= to) return;
  char* h = host(r, from);
  char* d = device_.output(r, from);
  const size_t bytes = (to - from) * stride_;
  check(cudaMemcpyAsync(kind == cudaMemcpyHostToDevice ? d : h, kind == cudaMemcpyHostToDevice ? h : d, bytes,
                        kind, streams_[0]),
        "cudaMemcpyAsync");
}

// Row t - 1's outputs between ranks: receives of what this rank's row t tasks read from others,
// sends of its own to every other rank with a reader.
void GpuRankGraph::exchange(long t) {
  const taskbench::TaskGraph& g = graph_;
  const int bytes = static_cast<int>(g.output_bytes());  // Session-like check below in main
  requests_.clear();
  const long row_first = std::max(first_, g.offset(t)), row_end = std::min(end_, g.offset(t) + g.width(t));
  for (long i = row_first; i < row_end; ++i) {
    const long n = g.task_dependencies(t, i, intervals_.data());
    for (long d = 0; d < n; ++d)
      for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) {
        const int owner = layout_.owner(j);
        if (owner == rank_ || requested_[j]) continue;
        requested_[j] = 1;
        requests_.emplace_back();
        MPI_Irecv(host(t - 1, j), bytes, MPI_BYTE, owner, static_cast<int>(j), comm_, &requests_.back());
      }
  }
  const long prev_first = std::max(first_, g.offset(t - 1)), prev_end = std::min(end_, g.offset(t - 1) + g.width(t - 1));
  for (long j = prev_first; j < prev_end; ++j) {
    const long n = g.task_successors(t - 1, j, intervals_.data());
    int last_sent = -1;  // readers are in ascending columns: their owners ascend too
    for (long d = 0; d < n; ++d)
      for (long k = intervals_[d].start; k <= intervals_[d].end; ++k) {
        const int owner = layout_.owner(k);
        if (owner == rank_ || owner == last_sent) continue;
        last_sent = owner;
        requests_.emplace_back();
        MPI_Isend(host(t - 1, j), bytes, MPI_BYTE, owner, static_cast<int>(j), comm_, &requests_.back());
      }
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  std::fill(requested_.begin(), requested_.end(), 0);
}

void GpuRankGraph::step(long t) {
  const taskbench::TaskGraph& g = graph_;
  if (t >= g.timesteps()) return;
  const long row_first = std::max(first_, g.offset(t)), row_end = std::min(end_, g.offset(t) + g.width(t));
  if (t > 0) exchange(t);
  if (row_first >= row_end) return;

  // 2. Inputs to the device: the span of row t - 1 the rank's tasks read, less its own columns.
  long lo = LONG_MAX, hi = LONG_MIN;
  for (long i = row_first; i < row_end; ++i) {
    const long n = g.task_dependencies(t, i, intervals_.data());
    if (n > 0) {
      lo = std::min(lo, intervals_[0].start);
      hi = std::max(hi, intervals_[n - 1].end + 1);
    }
  }
  if (lo < hi) {
    copy(t - 1, lo, std::min(hi, first_), cudaMemcpyHostToDevice);
    copy(t - 1, std::max(lo, end_), hi, cudaMemcpyHostToDevice);
  }
  check(cudaEventRecord(events_[0], streams_[0]), "cudaEventRecord");
  for (size_t s = 1; s < streams_.size(); ++s) check(cudaStreamWaitEvent(streams_[s], events_[0], 0), "cudaStreamWaitEvent");

  // 3. The tasks.
  for (long i = row_first; i < row_end; ++i) {
    const long n = g.task_dependencies(t, i, intervals_.data());
    inputs_.clear();
    for (long d = 0; d < n; ++d)
      for (long j = intervals_[d].start; j <= intervals_[d].end; ++j) inputs_.push_back({device_.output(t - 1, j), j});
    launcher_.launch(streams_[(i - row_first) % streams_.size()], t, i, device_.output(t, i), device_.scratch(i),
                     inputs_.data(), static_cast<long>(inputs_.size()));
  }
  for (size_t s = 1; s < streams_.size(); ++s) {
    check(cudaEventRecord(events_[s], streams_[s]), "cudaEventRecord");
    check(cudaStreamWaitEvent(streams_[0], events_[s], 0), "cudaStreamWaitEvent");
  }

  // 4. Outputs to the host: the span that other ranks read (none of the last row).
  long out_first = LONG_MAX, out_end = LONG_MIN;
  if (t + 1 < g.timesteps())
    for (long j = row_first; j < row_end; ++j) {
      const long n = g.task_successors(t, j, intervals_.data());
      if (n > 0 && (layout_.owner(intervals_[0].start) != rank_ || layout_.owner(intervals_[n - 1].end) != rank_)) {
        out_first = std::min(out_first, j);
        out_end = std::max(out_end, j + 1);
      }
    }
  copy(t, out_first, out_end, cudaMemcpyDeviceToHost);
  check(cudaStreamSynchronize(streams_[0]), "running a step");
}
