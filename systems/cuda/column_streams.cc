#include "column_streams.h"

#include <algorithm>

using taskbench::gpu::check;

ColumnStreams::ColumnStreams(const taskbench::TaskGraph& g)
    : graph_(g), hazards_(g), launcher_(g), buffers_(g, kRingRows), width_(g.max_width()),
      streams_(width_), events_(kRingRows * width_), event_row_(kRingRows * width_, -1), joins_(width_),
      deps_(std::max(1L, g.max_intervals())) {
  inputs_.reserve(g.max_dependencies());
  for (cudaStream_t& s : streams_) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  for (cudaEvent_t& e : events_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  for (cudaEvent_t& e : joins_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "cudaEventCreate");
}

ColumnStreams::~ColumnStreams() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  for (cudaEvent_t e : joins_) cudaEventDestroy(e);
  for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  cudaEventDestroy(fork_);
}

// Column i's stream waits for the event of column k's last row of this parity, if that row is
// in the window (a later row of column k than the one needed, never a row of t itself: rows are
// issued in order, and parity p's event holds row t - 1 or earlier).
void ColumnStreams::wait_for(long i, long parity, long k, long window_start) {
  if (k == i) return;  // the same stream: in order already
  const long slot = parity * width_ + k;
  if (event_row_[slot] < window_start) return;
  check(cudaStreamWaitEvent(streams_[i], events_[slot], 0), "cudaStreamWaitEvent");
}

void ColumnStreams::issue_row(long t, long window_start, const long* row_base) {
  const taskbench::TaskGraph& g = graph_;
  const long parity = t % kRingRows;
  const long launched_t = row_base != nullptr ? t - window_start : t;
  for (long i = g.offset(t), end = i + g.width(t); i < end; ++i) {
    const long n_deps = g.task_dependencies(t, i, deps_.data());
    inputs_.clear();
    for (long d = 0; d < n_deps; ++d)
      for (long j = deps_[d].start; j <= deps_[d].end; ++j) inputs_.push_back({buffers_.output(t - 1, j), j});
    // Its producers and the readers of the slot it overwrites; what else taskbench::Hazards
    // names is column i's own earlier tasks, which its stream already runs in order.
    hazards_.for_each(t, i, [&](long row, long k) { wait_for(i, row % kRingRows, k, window_start); });
    launcher_.launch(streams_[i], launched_t, i, buffers_.output(t, i), buffers_.scratch(i), inputs_.data(),
                     static_cast<long>(inputs_.size()), row_base);
    check(cudaEventRecord(events_[parity * width_ + i], streams_[i]), "cudaEventRecord");
    event_row_[parity * width_ + i] = t;
  }
}

void ColumnStreams::fork_from(cudaStream_t origin) {
  check(cudaEventRecord(fork_, origin), "cudaEventRecord");
  for (cudaStream_t s : streams_) check(cudaStreamWaitEvent(s, fork_, 0), "cudaStreamWaitEvent");
}

void ColumnStreams::join_into(cudaStream_t origin) {
  // Every stream that joined the capture must rejoin the origin, even one with no task in it.
  for (long i = 0; i < width_; ++i) {
    check(cudaEventRecord(joins_[i], streams_[i]), "cudaEventRecord");
    check(cudaStreamWaitEvent(origin, joins_[i], 0), "cudaStreamWaitEvent");
  }
}
