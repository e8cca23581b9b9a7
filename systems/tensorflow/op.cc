// TaskbenchTask: one Task Bench task as a TensorFlow op. Its inputs are the producers' output
// tensors (uint8 vectors, in Graph.dependencies order), its output the task's own; Compute
// hands the tensors' memory to the core's execute_point, which validates them and runs the
// kernel, so a corrupted input is caught on TensorFlow's own tensors (the core prints its line
// and ends the process with status 3, as in any single-process system).
//
// This library holds its own copy of the core (libtaskbench.a, linked in): its executed-task
// counts and its fault switch are this copy's, hence the C entry points at the bottom, which
// the driver calls through ctypes.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "taskbench/task_graph.h"
#include "taskbench/worker.h"

namespace {

using tensorflow::OpKernel;
using tensorflow::OpKernelConstruction;
using tensorflow::OpKernelContext;

// The fields of task_graph_t in the binding's pickled order (Graph.__getstate__), every one an
// int64: the two doubles travel as their bit patterns, since TensorFlow's float attrs are 32-bit.
constexpr int kGraphFields = 15;

// Kernels TensorFlow constructed: one per op when it instantiates the function's graph, none
// when it runs an instantiated graph again (the driver reports them per call).
std::atomic<long long> kernels_constructed{0};

double double_of(int64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

task_graph_t graph_of(const std::vector<int64_t>& f) {
  task_graph_t g{};
  g.graph_index = f[0];
  g.timesteps = f[1];
  g.max_width = f[2];
  g.dependence = static_cast<dependence_type_t>(f[3]);
  g.radix = f[4];
  g.period = f[5];
  g.fraction_connected = double_of(f[6]);
  g.kernel.type = static_cast<kernel_type_t>(f[7]);
  g.kernel.iterations = f[8];
  g.kernel.samples = static_cast<int>(f[9]);
  g.kernel.imbalance = double_of(f[10]);
  g.output_bytes_per_task = static_cast<size_t>(f[11]);
  g.scratch_bytes_per_task = static_cast<size_t>(f[12]);
  g.nb_fields = static_cast<int>(f[13]);
  taskbench_set_graph_seed(g.graph_index, static_cast<unsigned long>(f[14]));  // kept by the core
  return g;
}

class TaskbenchTask : public OpKernel {
 public:
  explicit TaskbenchTask(OpKernelConstruction* context) : OpKernel(context) {
    std::vector<int64_t> fields;
    OP_REQUIRES_OK(context, context->GetAttr("graph", &fields));
    OP_REQUIRES(context, fields.size() == kGraphFields,
                tensorflow::errors::InvalidArgument("graph: expected ", kGraphFields, " fields"));
    graph_ = taskbench::TaskGraph(graph_of(fields));
    OP_REQUIRES_OK(context, context->GetAttr("t", &t_));
    OP_REQUIRES_OK(context, context->GetAttr("i", &i_));
    kernels_constructed.fetch_add(1, std::memory_order_relaxed);
  }

  void Compute(OpKernelContext* context) override {
    const int n = context->num_inputs() - 1;  // input 0 is `start`, not the task's
    std::vector<const char*> inputs(n);
    std::vector<size_t> sizes(n);
    for (int k = 0; k < n; ++k) {
      const tensorflow::Tensor& input = context->input(k + 1);
      inputs[k] = reinterpret_cast<const char*>(input.tensor_data().data());
      sizes[k] = input.tensor_data().size();
    }
    tensorflow::Tensor* output = nullptr;
    const int64_t bytes = static_cast<int64_t>(graph_.output_bytes());
    OP_REQUIRES_OK(context, context->allocate_output(0, tensorflow::TensorShape({bytes}), &output));
    char* out = const_cast<char*>(output->tensor_data().data());
    // No scratch buffer: kernels that need one use the calling thread's (the core's fallback).
    graph_.execute_point(t_, i_, out, graph_.output_bytes(), inputs.data(), sizes.data(), n, nullptr, 0);
  }

 private:
  taskbench::TaskGraph graph_;
  int64_t t_ = 0;
  int64_t i_ = 0;
};

}  // namespace

// `start` is the function's argument, never read: an op whose inputs are all constants (row 0
// has none) is evaluated by TensorFlow's constant folding when the function is instantiated,
// on one thread, outside the executor; with it, every op runs in the call.
REGISTER_OP("TaskbenchTask")
    .Input("start: uint8")
    .Input("inputs: N * uint8")
    .Output("output: uint8")
    .Attr("N: int >= 0")
    .Attr("graph: list(int)")
    .Attr("t: int")
    .Attr("i: int")
    .Attr("output_bytes: int")
    .SetShapeFn([](tensorflow::shape_inference::InferenceContext* c) {
      int64_t bytes;
      TF_RETURN_IF_ERROR(c->GetAttr("output_bytes", &bytes));
      c->set_output(0, c->Vector(bytes));
      return tensorflow::OkStatus();
    });

REGISTER_KERNEL_BUILDER(Name("TaskbenchTask").Device(tensorflow::DEVICE_CPU), TaskbenchTask);

// TASKBENCH_FAULT for this library's copy of the core; returns false for an invalid value.
extern "C" bool taskbench_tf_setup() {
  try {
    taskbench::worker::setup({});
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}

// Tasks of graph `graph` that ran through this library's copy of the core.
extern "C" long long taskbench_tf_executed(long graph) {
  return taskbench::worker::executed_counts(graph + 1)[graph];
}

// Zeroes this library's executed-task counts: the driver's untimed first call ran every task
// once, and the report counts the timed call's alone.
extern "C" void taskbench_tf_reset() { taskbench::worker::reset(); }

// TaskbenchTask kernels constructed so far.
extern "C" long long taskbench_tf_kernels_constructed() {
  return kernels_constructed.load(std::memory_order_relaxed);
}
