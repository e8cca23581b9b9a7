// taskbench C++ API: a task graph is a value (the C API's task_graph_t) with pure queries.
#pragma once

#include <cstddef>
#include <string>

#include "taskbench/taskbench.h"

namespace taskbench {

using Interval = interval_t;  // inclusive [start, end]

const char* pattern_name(dependence_type_t pattern);
const char* kernel_name(kernel_type_t kernel);

class TaskGraph {
 public:
  TaskGraph() = default;
  explicit TaskGraph(const task_graph_t& raw) : g_(raw) {}

  const task_graph_t& raw() const { return g_; }
  task_graph_t& raw() { return g_; }

  long index() const { return g_.graph_index; }
  long timesteps() const { return g_.timesteps; }
  long max_width() const { return g_.max_width; }
  dependence_type_t pattern() const { return g_.dependence; }
  const kernel_t& kernel() const { return g_.kernel; }
  size_t output_bytes() const { return g_.output_bytes_per_task; }
  size_t scratch_bytes() const { return g_.scratch_bytes_per_task; }

  long offset(long t) const { return task_graph_offset_at_timestep(g_, t); }
  long width(long t) const { return task_graph_width_at_timestep(g_, t); }
  long dependence_sets() const { return task_graph_max_dependence_sets(g_); }
  long dependence_set(long t) const { return task_graph_dependence_set_at_timestep(g_, t); }
  bool contains(long t, long i) const { return task_graph_contains_point(g_, t, i); }
  long max_intervals() const { return task_graph_max_intervals(g_); }
  long max_dependencies() const { return task_graph_max_dependencies(g_); }

  // Raw relation for a dependence set (clipped to 0..W-1); returns the interval count.
  long dependencies(long dset, long i, Interval* out) const {
    return task_graph_dependencies_into(g_, dset, i, out);
  }
  long reverse_dependencies(long dset, long i, Interval* out) const {
    return task_graph_reverse_dependencies_into(g_, dset, i, out);
  }
  // Inputs of task (t, i) clipped to row t-1; consumers clipped to row t+1.
  long task_dependencies(long t, long i, Interval* out) const {
    return task_graph_task_dependencies_into(g_, t, i, out);
  }
  long task_successors(long t, long i, Interval* out) const {
    return task_graph_task_successors_into(g_, t, i, out);
  }

  void execute_point(long t, long i, char* output, size_t output_bytes, const char** inputs,
                     const size_t* input_bytes, size_t n_inputs, char* scratch,
                     size_t scratch_bytes) const {
    task_graph_execute_point_scratch(g_, t, i, output, output_bytes, inputs, input_bytes,
                                     n_inputs, scratch, scratch_bytes);
  }

  // An output no task read: the last timestep's, handed over after the run (taskbench.h).
  void check_unread_output(long t, long i, const char* output, size_t output_bytes) const {
    task_graph_check_unread_output(g_, t, i, output, output_bytes);
  }

  long long flops_per_task(long t, long i) const { return task_graph_flops_per_task(g_, t, i); }
  long long bytes_per_task(long t, long i) const { return task_graph_bytes_per_task(g_, t, i); }

  std::string describe() const;  // one line: pattern, shape, kernel, sizes

 private:
  task_graph_t g_{};
};

// Number of points in a list of intervals.
inline long count_points(const Interval* intervals, long n) {
  long total = 0;
  for (long k = 0; k < n; ++k) total += intervals[k].end - intervals[k].start + 1;
  return total;
}

}  // namespace taskbench
