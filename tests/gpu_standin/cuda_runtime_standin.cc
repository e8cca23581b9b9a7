// A stand-in for the CUDA runtime, for machines without an NVIDIA GPU (CI): the subset of the
// runtime API the GPU systems call, with the semantics that decide whether a system is right,
// executed on the host, so the systems' own host code (streams, events, stream capture, graphs,
// copies, MPI staging) runs unchanged against it and their results are checked against serial's.
//
// - Device memory is host memory; a copy is a memcpy done when its stream reaches it.
// - Streams are queues of operations. Nothing runs when it is issued: at a synchronization the
//   queued operations run in a random order that respects only what CUDA guarantees (each
//   stream's order, and waits on an event: for the work recorded when the wait was issued), so a
//   dependency a system forgot shows up as a task reading an input that is not there yet, and
//   fails validation. TASKBENCH_STANDIN_SEED sets the order's seed.
// - Stream capture builds a graph from the operations and waits issued on the capturing streams
//   and refuses what CUDA refuses: waiting in a capture on an event recorded outside it, ending a
//   capture with a stream that joined it and did not rejoin the origin. A graph replay runs its
//   nodes in a random order that respects the graph's edges.
// - TASKBENCH_STANDIN_DROP_WAITS=1 ignores every wait on an event: the tests show with it that a
//   system missing its dependencies fails here (so that passing here means something).
// - TASKBENCH_STANDIN_CALL_LOG=PATH appends a line per copy, launch and synchronization as the
//   system issues it ("PID to_device BYTES", "PID launch", "PID stream_sync", ...): the tests
//   read a system's offload pattern from it.
#include <cuda_runtime_api.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "cuda_standin.h"

struct CUgraph_st {
  struct Node {
    std::function<void()> run;
    std::vector<long> after;  // nodes that finish first
  };
  std::vector<Node> nodes;
};

struct CUgraphExec_st {
  std::vector<CUgraph_st::Node> nodes;
};

namespace {

struct Capture {
  long id;
  CUstream_st* origin;
  std::unique_ptr<CUgraph_st> graph;
  std::set<CUstream_st*> streams;  // the origin and every stream that joined
};

}  // namespace

struct CUstream_st {
  struct Op {
    std::function<void()> run;
    long after;  // an operation that finishes first (an event's work), or -1
    long id;
  };
  std::deque<Op> queue;
  Capture* capture = nullptr;
  std::vector<long> tail;  // in a capture: the nodes this stream's next node depends on
};

struct CUevent_st {
  long op = -1;        // the operation recorded last outside a capture
  long capture = -1;   // or the capture it was recorded in last (its id)
  std::vector<long> nodes;
};

namespace {

std::vector<CUstream_st*> streams;  // every live stream
std::vector<Capture*> captures;     // by id; null once ended
std::vector<char> finished;         // by operation id
long next_op = 0;

std::mt19937_64& random_order() {
  static std::mt19937_64 rng(std::getenv("TASKBENCH_STANDIN_SEED") ? std::atoll(std::getenv("TASKBENCH_STANDIN_SEED")) : 1);
  return rng;
}

long enqueue(CUstream_st* s, std::function<void()> run, long after = -1) {
  if (s->capture != nullptr) {
    auto& nodes = s->capture->graph->nodes;
    nodes.push_back({std::move(run), s->tail});
    s->tail = {static_cast<long>(nodes.size()) - 1};
    return -1;
  }
  const long id = next_op++;
  finished.push_back(0);
  s->queue.push_back({std::move(run), after, id});
  return id;
}

// Runs every queued operation, each time one at the head of a random stream among those whose
// head may run.
void run_everything() {
  std::vector<CUstream_st*> ready;
  for (;;) {
    ready.clear();
    bool pending = false;
    for (CUstream_st* s : streams)
      if (!s->queue.empty()) {
        pending = true;
        const long after = s->queue.front().after;
        if (after < 0 || finished[after]) ready.push_back(s);
      }
    if (!pending) return;
    if (ready.empty()) {
      std::fprintf(stderr, "CUDA stand-in: every stream waits for an event that never completes\n");
      std::abort();
    }
    CUstream_st* s = ready[random_order()() % ready.size()];
    CUstream_st::Op op = std::move(s->queue.front());
    s->queue.pop_front();
    op.run();
    finished[op.id] = 1;
  }
}

void run_graph(const std::vector<CUgraph_st::Node>& nodes) {
  std::vector<char> done(nodes.size(), 0);
  std::vector<size_t> ready;
  for (size_t left = nodes.size(); left > 0; --left) {
    ready.clear();
    for (size_t n = 0; n < nodes.size(); ++n)
      if (!done[n] && std::all_of(nodes[n].after.begin(), nodes[n].after.end(), [&](long a) { return done[a] != 0; }))
        ready.push_back(n);
    const size_t n = ready[random_order()() % ready.size()];
    nodes[n].run();
    done[n] = 1;
  }
}

void ancestors(const CUgraph_st& g, long node, std::vector<char>& seen) {
  if (seen[node]) return;
  seen[node] = 1;
  for (long a : g.nodes[node].after) ancestors(g, a, seen);
}

}  // namespace

namespace taskbench::gpu_standin {

void launch(cudaStream_t stream, std::function<void()> task) {
  log_call("launch");
  enqueue(stream, std::move(task));
}

void log_call(const char* what, long bytes) {
  static const int fd = [] {
    const char* path = std::getenv("TASKBENCH_STANDIN_CALL_LOG");
    return path == nullptr ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }();
  if (fd < 0) return;
  char line[80];
  const int n = bytes < 0 ? std::snprintf(line, sizeof line, "%ld %s\n", static_cast<long>(getpid()), what)
                          : std::snprintf(line, sizeof line, "%ld %s %ld\n", static_cast<long>(getpid()), what, bytes);
  if (write(fd, line, static_cast<size_t>(n)) != n) std::abort();  // one write: whole lines
}

}  // namespace taskbench::gpu_standin

namespace {

const char* direction(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToDevice: return "to_device";
    case cudaMemcpyDeviceToHost: return "to_host";
    case cudaMemcpyDeviceToDevice: return "device_to_device";
    default: return "copy";
  }
}

}  // namespace

extern "C" {

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorStreamCaptureIsolation: return "dependency created on uncaptured work in another stream";
    case cudaErrorStreamCaptureUnjoined: return "capture contains a fork that was not joined to the primary stream";
    case cudaErrorStreamCaptureUnmatched: return "the capture was not initiated in this stream";
    default: return "CUDA stand-in error";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int) {
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "taskbench CUDA stand-in (host)");
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int) { return cudaSuccess; }

cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaMallocHost(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }

cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  run_everything();
  std::memset(p, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
  taskbench::gpu_standin::log_call(direction(kind), static_cast<long>(bytes));
  run_everything();
  std::memcpy(to, from, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  taskbench::gpu_standin::log_call(direction(kind), static_cast<long>(bytes));
  enqueue(s, [=] { std::memcpy(to, from, bytes); });
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = new CUstream_st;
  streams.push_back(*s);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  run_everything();
  streams.erase(std::find(streams.begin(), streams.end(), s));
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) {
  taskbench::gpu_standin::log_call("stream_sync");
  run_everything();
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  taskbench::gpu_standin::log_call("device_sync");
  run_everything();
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  *e = new CUevent_st;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (s->capture != nullptr) {
    e->capture = s->capture->id;
    e->nodes = s->tail;
    e->op = -1;
  } else {
    e->capture = -1;
    e->op = enqueue(s, [] {});
  }
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  static const bool drop = std::getenv("TASKBENCH_STANDIN_DROP_WAITS") != nullptr;
  if (drop) return cudaSuccess;
  if (e->capture >= 0) {
    Capture* c = captures[e->capture];
    if (c == nullptr) return cudaErrorStreamCaptureIsolation;  // recorded in a capture that ended
    if (s->capture == nullptr) {  // the stream joins the event's capture
      s->capture = c;
      c->streams.insert(s);
      s->tail = e->nodes;
    } else if (s->capture == c) {
      s->tail.insert(s->tail.end(), e->nodes.begin(), e->nodes.end());
    } else {
      return cudaErrorStreamCaptureIsolation;
    }
    return cudaSuccess;
  }
  if (s->capture != nullptr) return cudaErrorStreamCaptureIsolation;  // uncaptured work
  if (e->op >= 0) enqueue(s, [] {}, e->op);
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (s->capture != nullptr) return cudaErrorIllegalState;
  s->capture = new Capture{static_cast<long>(captures.size()), s, std::make_unique<CUgraph_st>(), {s}};
  captures.push_back(s->capture);
  s->tail.clear();
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
  Capture* c = s->capture;
  if (c == nullptr || c->origin != s) return cudaErrorStreamCaptureUnmatched;
  // Every stream that joined must have rejoined: its last nodes are the origin's ancestors.
  std::vector<char> seen(c->graph->nodes.size(), 0);
  for (long n : s->tail) ancestors(*c->graph, n, seen);
  cudaError_t status = cudaSuccess;
  for (CUstream_st* joined : c->streams)
    for (long n : joined->tail)
      if (!seen[n]) status = cudaErrorStreamCaptureUnjoined;
  for (CUstream_st* joined : c->streams) {
    joined->capture = nullptr;
    joined->tail.clear();
  }
  *graph = status == cudaSuccess ? c->graph.release() : nullptr;
  captures[c->id] = nullptr;
  delete c;
  return status;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t*, size_t* count) {
  *count = g->nodes.size();
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t g, unsigned long long) {
  *exec = new CUgraphExec_st{g->nodes};
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  delete g;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  enqueue(s, [exec] { run_graph(exec->nodes); });
  return cudaSuccess;
}

}  // extern "C"
