#include "graph_handles.h"

#include <cstdint>

namespace taskbench_starpu {
namespace {

starpu_data_handle_t register_buffer(char* memory, size_t bytes, bool local) {
  starpu_data_handle_t h;
  if (local)
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(memory), bytes);
  else
    starpu_variable_data_register(&h, -1, 0, bytes);
  return h;
}

}  // namespace

GraphHandles::GraphHandles(const taskbench::PointBuffers& buffers, int fields,
                           const std::function<bool(long column)>& local,
                           starpu_data_access_mode output_mode)
    : buffers_(buffers), fields_(fields), width_(buffers.graph().max_width()), output_mode_(output_mode) {
  const taskbench::TaskGraph& g = buffers.graph();
  for (int f = 0; f < fields; ++f)
    for (long i = 0; i < width_; ++i)
      outputs_.push_back(register_buffer(buffers.output(f, i), g.output_bytes(), local(i)));
}

GraphHandles::~GraphHandles() {
  for (starpu_data_handle_t h : outputs_) starpu_data_unregister(h);
}

size_t GraphHandles::describe(long t, long i, std::vector<taskbench::Interval>& deps,
                              std::vector<starpu_data_descr>& data) const {
  size_t n = 0;
  data[n++] = {output(t, i), output_mode_};
  const long intervals = graph().task_dependencies(t, i, deps.data());
  for (long d = 0; d < intervals; ++d)
    for (long j = deps[d].start; j <= deps[d].end; ++j) data[n++] = {output(t - 1, j), STARPU_R};
  return n;
}

void GraphHandles::for_each(const std::function<void(starpu_data_handle_t, long)>& f) const {
  for (size_t k = 0; k < outputs_.size(); ++k) f(outputs_[k], static_cast<long>(k) % width_);
}

}  // namespace taskbench_starpu
