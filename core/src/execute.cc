// execute_point: validate, run the kernel, write the identity, count, trace.
#include <cstdio>
#include <cstring>

#include "fault.h"
#include "kernels/kernels.h"
#include "pattern.h"
#include "thread_state.h"
#include "validate.h"

using namespace taskbench;

namespace {

bool kernel_uses_scratch(kernel_type_t k) {
  return k == MEMORY_BOUND || k == MEMORY_DAXPY || k == COMPUTE_DGEMM;
}

char* thread_scratch(ThreadState& st, size_t bytes) {
  if (st.scratch.size() < bytes) {
    st.scratch.assign(bytes, 0);
    task_graph_prepare_scratch(st.scratch.data(), bytes);
  }
  return st.scratch.data();
}

}  // namespace

extern "C" {

void task_graph_prepare_scratch(char* scratch, size_t bytes) {
  // Zeros are valid inputs for every kernel (no NaNs, no denormals) and fault the pages in.
  std::memset(scratch, 0, bytes);
}

void task_graph_execute_point_scratch(task_graph_t g, long t, long i, char* output,
                                      size_t output_bytes, const char** inputs,
                                      const size_t* input_bytes, size_t n_inputs,
                                      char* scratch, size_t scratch_bytes) {
  ThreadState& st = this_thread_state();
  const double start = run_switches.tracing ? taskbench_wall_time() : 0.0;

  if (!pattern::contains(g, t, i))
    validation_failure(g, t, i, "this task is not in the graph");
  if (output == nullptr || output_bytes != g.output_bytes_per_task)
    validation_failure(g, t, i, "output buffer of %zu bytes, the graph declares %zu",
                       output == nullptr ? size_t{0} : output_bytes, g.output_bytes_per_task);
  validate_inputs(g, t, i, inputs, input_bytes, n_inputs);

  if (kernel_uses_scratch(g.kernel.type)) {
    if (scratch == nullptr) {
      scratch = thread_scratch(st, g.scratch_bytes_per_task);
      scratch_bytes = g.scratch_bytes_per_task;
    }
    if (scratch_bytes < g.scratch_bytes_per_task)
      validation_failure(g, t, i, "scratch buffer of %zu bytes, the graph declares %zu",
                         scratch_bytes, g.scratch_bytes_per_task);
    scratch_bytes = g.scratch_bytes_per_task;
  }
  if (__builtin_expect(run_switches.charge_flops != nullptr, 0))
    run_switches.charge_flops(static_cast<double>(task_graph_flops_per_task(g, t, i)));
  else
    kernels::run(g, t, i, scratch, scratch_bytes);
  write_identity(output, output_bytes, t, i);

  const Fault& fault = run_switches.fault;
  if (__builtin_expect(fault.kind != FaultKind::kNone, 0) && g.graph_index == fault.graph &&
      t == fault.t && i == fault.i)
    inject_fault(fault, output);  // TASKBENCH_FAULT: corrupt returns, hang and kill do not

  const size_t gi = static_cast<size_t>(g.graph_index);
  if (__builtin_expect(gi >= st.executed.size(), 0)) st.executed.resize(gi + 1, 0);
  ++st.executed[gi];
  if (run_switches.tracing) st.trace.push_back({g.graph_index, t, i, start, taskbench_wall_time()});
}

void task_graph_check_unread_output(task_graph_t g, long t, long i, const char* output,
                                    size_t output_bytes) {
  check_unread_output(g, t, i, output, output_bytes);
}

void task_graph_execute_point_scratch_auto(task_graph_t g, long t, long i, char* output,
                                           size_t output_bytes, const char** inputs,
                                           const size_t* input_bytes, size_t n_inputs,
                                           size_t scratch_bytes) {
  // A per-thread buffer, grown and prepared on first use, instead of one per call: the same
  // contents the port would have passed, without an allocation per task.
  char* scratch = scratch_bytes > 0 ? thread_scratch(this_thread_state(), scratch_bytes) : nullptr;
  task_graph_execute_point_scratch(g, t, i, output, output_bytes, inputs, input_bytes, n_inputs,
                                   scratch, scratch_bytes);
}

void task_graph_execute_point_scratch_nonconst(task_graph_t g, long t, long i, int64_t* output,
                                               size_t output_bytes, int64_t** inputs,
                                               const size_t* input_bytes, size_t n_inputs,
                                               char* scratch, size_t scratch_bytes) {
  task_graph_execute_point_scratch(g, t, i, reinterpret_cast<char*>(output), output_bytes,
                                   const_cast<const char**>(reinterpret_cast<char**>(inputs)),
                                   input_bytes, n_inputs, scratch, scratch_bytes);
}

void task_graph_execute_point_nonconst(task_graph_t g, long t, long i, int64_t* output,
                                       size_t output_bytes, int64_t** inputs,
                                       const size_t* input_bytes, size_t n_inputs) {
  task_graph_execute_point_scratch_nonconst(g, t, i, output, output_bytes, inputs, input_bytes,
                                            n_inputs, nullptr, 0);
}

void task_graph_execute_point(task_graph_t g, long t, long i, char* output, size_t output_bytes,
                              const char** inputs, const size_t* input_bytes, size_t n_inputs) {
  task_graph_execute_point_scratch(g, t, i, output, output_bytes, inputs, input_bytes, n_inputs,
                                   nullptr, 0);
}

}  // extern "C"
