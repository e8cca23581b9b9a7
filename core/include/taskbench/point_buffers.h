// Storage that shared-memory systems use for one graph: `fields` output buffers per column
// (task (t, i) writes field t mod fields, so row t-1 stays readable while row t is written),
// one scratch buffer per column, and the gathering of a task's inputs from row t-1.
// Inputs are passed by pointer: no copy on the shared-memory path.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "taskbench/task_graph.h"

namespace taskbench {

class PointBuffers {
 public:
  explicit PointBuffers(const TaskGraph& g, int fields = 2)
      : graph_(g),
        fields_(fields),
        stride_(round_up(g.output_bytes())),
        outputs_(allocate(stride_ * g.max_width() * fields)),
        scratch_(allocate(g.scratch_bytes() * g.max_width())) {
    if (g.scratch_bytes() > 0) task_graph_prepare_scratch(scratch_.get(), g.scratch_bytes() * g.max_width());
  }

  const TaskGraph& graph() const { return graph_; }
  // Bytes between two columns' outputs (each field holds max_width() of them).
  static size_t stride(size_t output_bytes) { return round_up(output_bytes); }
  char* output(long t, long i) const {
    return outputs_.get() + (static_cast<size_t>(t % fields_) * graph_.max_width() + i) * stride_;
  }
  char* scratch(long i) const { return scratch_.get() + graph_.scratch_bytes() * i; }

  // Hands every output of the graph's last timestep to the core's check (after the run).
  void check_last_row() const {
    const long t = graph_.timesteps() - 1;
    for (long i = graph_.offset(t), end = i + graph_.width(t); i < end; ++i)
      graph_.check_unread_output(t, i, output(t, i), graph_.output_bytes());
  }

  // Runs task (t, i): gathers pointers to its inputs in row t-1 and calls execute_point.
  void run(long t, long i) const {
    constexpr long kSmall = 16;  // most patterns: no heap, no thread_local lookups
    if (graph_.max_dependencies() <= kSmall && graph_.max_intervals() <= kSmall) {
      Interval deps[kSmall];
      const char* inputs[kSmall];
      size_t sizes[kSmall];
      run_with(t, i, deps, inputs, sizes);
    } else {
      thread_local std::vector<Interval> deps;
      thread_local std::vector<const char*> inputs;
      thread_local std::vector<size_t> sizes;
      deps.resize(std::max<size_t>(deps.size(), graph_.max_intervals()));
      inputs.resize(std::max<size_t>(inputs.size(), graph_.max_dependencies()));
      sizes.resize(inputs.size());
      run_with(t, i, deps.data(), inputs.data(), sizes.data());
    }
  }

 private:
  void run_with(long t, long i, Interval* deps, const char** inputs, size_t* sizes) const {
    const long n = graph_.task_dependencies(t, i, deps);
    size_t k = 0;
    for (long d = 0; d < n; ++d)
      for (long j = deps[d].start; j <= deps[d].end; ++j, ++k) {
        inputs[k] = output(t - 1, j);
        sizes[k] = graph_.output_bytes();
      }
    graph_.execute_point(t, i, output(t, i), graph_.output_bytes(), inputs, sizes, k, scratch(i),
                         graph_.scratch_bytes());
  }

  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  // 128 bytes, not 64: Intel's spatial prefetcher pulls cache lines in aligned pairs, so
  // neighbouring columns written by different threads would still share traffic
  // (measured: native stencil_1d width 2, 3-4% more time per row with 64).
  static size_t round_up(size_t bytes) { return (bytes + 127) / 128 * 128; }
  static std::unique_ptr<char, Free> allocate(size_t bytes) {
    // Aligned as the stride: no false sharing between columns written by different threads.
    return std::unique_ptr<char, Free>(
        static_cast<char*>(std::aligned_alloc(128, round_up(bytes == 0 ? 1 : bytes))));
  }

  TaskGraph graph_;
  int fields_;
  size_t stride_;
  std::unique_ptr<char, Free> outputs_, scratch_;
};

// The longest graph decides how many timesteps a system loops over.
inline long max_timesteps(const std::vector<TaskGraph>& graphs) {
  long t = 0;
  for (const TaskGraph& g : graphs) t = t > g.timesteps() ? t : g.timesteps();
  return t;
}

// After the timed region: every graph's last-timestep outputs, to the core's check.
inline void check_last_rows(const std::vector<PointBuffers>& buffers) {
  for (const PointBuffers& b : buffers) b.check_last_row();
}

}  // namespace taskbench
