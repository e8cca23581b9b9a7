#include "point_codelet.h"

#include <vector>

namespace taskbench_starpu {
namespace {

char* pointer(void* buffer) {
  return reinterpret_cast<char*>(STARPU_VARIABLE_GET_PTR(buffer));
}

void run_point(void* buffers[], void* cl_arg) {
  PointTask task;
  starpu_codelet_unpack_args(cl_arg, &task);
  const taskbench::TaskGraph& g = *task.graph;
  constexpr size_t first_input = 1;  // buffer 0 is the output
  const size_t n_inputs = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - first_input;
  // thread_local: a worker reuses its arrays instead of allocating per task.
  thread_local std::vector<const char*> inputs;
  thread_local std::vector<size_t> sizes;
  if (inputs.size() < n_inputs) {
    inputs.resize(n_inputs);
    sizes.resize(n_inputs);
  }
  for (size_t k = 0; k < n_inputs; ++k) {
    inputs[k] = pointer(buffers[first_input + k]);
    sizes[k] = g.output_bytes();
  }
  // No scratch pointer: the core hands the kernel this worker thread's scratch buffer.
  g.execute_point(task.t, task.i, pointer(buffers[0]), g.output_bytes(), inputs.data(),
                  sizes.data(), n_inputs, nullptr, 0);
}

starpu_codelet make_codelet() {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = run_point;
  cl.cpu_funcs_name[0] = "taskbench_point";
  cl.nbuffers = STARPU_VARIABLE_NBUFFERS;  // modes come with each task (STARPU_DATA_MODE_ARRAY)
  cl.name = "taskbench_point";
  return cl;
}

}  // namespace

starpu_codelet* point_codelet() {
  static starpu_codelet cl = make_codelet();
  return &cl;
}

}  // namespace taskbench_starpu
