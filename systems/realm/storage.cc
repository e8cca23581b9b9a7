#include "storage.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace taskbench_realm {

std::vector<GraphData> graph_data;

namespace {

constexpr size_t kAlign = 128;  // as PointBuffers: no false sharing between columns

size_t round_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

void point_task(const void* args, size_t, const void*, size_t, Realm::Processor) {
  PointArgs a;
  std::memcpy(&a, args, sizeof a);
  const GraphData& d = graph_data[a.graph];
  thread_local std::vector<taskbench::Interval> deps;
  thread_local std::vector<const char*> inputs;
  thread_local std::vector<size_t> sizes;
  deps.resize(std::max<size_t>(deps.size(), d.graph.max_intervals()));
  inputs.resize(std::max<size_t>(inputs.size(), d.graph.max_dependencies()));
  sizes.resize(inputs.size());
  const long n = d.graph.task_dependencies(a.t, a.i, deps.data());
  size_t k = 0;
  for (long r = 0; r < n; ++r)
    for (long j = deps[r].start; j <= deps[r].end; ++j, ++k) {
      inputs[k] = d.output(a.t - 1, j);
      sizes[k] = d.graph.output_bytes();
    }
  d.graph.execute_point(a.t, a.i, d.output(a.t, a.i), d.graph.output_bytes(), inputs.data(), sizes.data(), k,
                        d.scratch + d.graph.scratch_bytes() * a.i, d.graph.scratch_bytes());
}

}  // namespace

size_t storage_bytes(const taskbench::App& app, long slots) {
  size_t bytes = kAlign;  // room to align the base
  for (const taskbench::TaskGraph& g : app.graphs())
    bytes += round_up(g.output_bytes()) * g.max_width() * slots + round_up(g.scratch_bytes() * g.max_width());
  return bytes;
}

void make_storage(const taskbench::App& app, long slots, char* base) {
  base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;
  for (const taskbench::TaskGraph& g : app.graphs()) {
    GraphData d;
    d.graph = g;
    d.slots = slots;
    d.stride = round_up(g.output_bytes());
    d.outputs = base;
    d.scratch = d.outputs + d.stride * g.max_width() * slots;
    if (g.scratch_bytes() > 0) task_graph_prepare_scratch(d.scratch, g.scratch_bytes() * g.max_width());
    base = d.scratch + round_up(g.scratch_bytes() * g.max_width());
    graph_data.push_back(d);
  }
}

void register_point_task() {
  Realm::Processor::register_task_by_kind(Realm::Processor::LOC_PROC, false, kPointTask,
                                          Realm::CodeDescriptor(point_task), Realm::ProfilingRequestSet())
      .wait();
}

void check_last_rows() {
  for (const GraphData& d : graph_data) {
    const long t = d.graph.timesteps() - 1;
    for (long i = d.graph.offset(t), end = i + d.graph.width(t); i < end; ++i)
      d.graph.check_unread_output(t, i, d.output(t, i), d.graph.output_bytes());
  }
}

void fail(const std::string& line) {
  std::fprintf(stderr, "taskbench: %s: %s\n", TASKBENCH_SYSTEM_NAME, line.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace taskbench_realm
