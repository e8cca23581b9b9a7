// tbrt: a small task runtime with per-worker LIFO deques and priorities (LLP
// style), depth-first "next task" slots, thread-local termination detection,
// persistent graphs and dynamically wired tasks.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "tbrt/graph.h"
#include "tbrt/stats.h"
#include "tbrt/task.h"

namespace tbrt {

namespace detail {
class Impl;
}

enum class QueueMode {
  kLifo,  // per-worker deques + work stealing (default)
  kFifo,  // one shared FIFO queue; priorities and the next-task slot unused
};

struct Options {
  int num_workers = 1;  // including the thread that constructs the Runtime (worker 0); <= 0: all cores
  QueueMode queue = QueueMode::kLifo;
  int pin = -1;           // pin worker k to the k-th allowed CPU: -1 auto (when workers <= CPUs), 0 no, 1 yes
  bool measure = false;   // per-thread work/overhead/discovery times; off: no clock reads per task
  bool depth_first = true;  // LIFO: a newly ready successor runs next, bypassing the deque
  // Throttle: when the owner thread creates dynamic tasks outside wait() and
  // more than this many are unfinished, it runs ready tasks itself first
  // (as OpenMP runtimes do), bounding memory and keeping tasks cache-warm.
  // 0: never.
  std::uint32_t max_outstanding = 1u << 14;
};

class Runtime;

// Reference to a dynamic task from Runtime::create. Move-only. Destroying (or
// reset()) drops the reference; an unsubmitted task is submitted first.
class TaskHandle {
 public:
  TaskHandle() = default;
  TaskHandle(TaskHandle&& o) noexcept : rt_(o.rt_), t_(std::exchange(o.t_, nullptr)) {}
  TaskHandle& operator=(TaskHandle&& o) noexcept {
    if (this != &o) {
      reset();
      rt_ = o.rt_;
      t_ = std::exchange(o.t_, nullptr);
    }
    return *this;
  }
  ~TaskHandle() { reset(); }
  void reset();
  explicit operator bool() const { return t_ != nullptr; }

 private:
  friend class Runtime;
  TaskHandle(Runtime* rt, detail::DynTask* t) : rt_(rt), t_(t) {}
  Runtime* rt_ = nullptr;
  detail::DynTask* t_ = nullptr;
};

// All methods must be called from the constructing thread or from inside a
// task body running on this runtime, except stats() (constructing thread).
class Runtime {
 public:
  explicit Runtime(const Options& opts = Options{});
  ~Runtime();  // waits for nothing: call wait() first; handles must be gone
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int num_workers() const;
  const Options& options() const;
  bool pinned() const;
  // Worker index of the calling thread for this runtime, or -1.
  int worker_id() const;

  // ---- persistent graphs
  // Makes the graph's roots ready. A graph must not be submitted again before
  // wait() returned; several different graphs may be in flight.
  //
  // replays > 1 runs it that many times back to back, with no barrier between replays: a
  // node of replay r (0-based) may start once its predecessors completed replay r and its
  // carried ones replay r - 1 (Graph::add_carried_edge), and its body gets i + r * i_step
  // as its i (so one period of a periodic computation stands for all of it). Every node
  // must be homed (std::invalid_argument otherwise): pushed counters would mix replays.
  void submit(Graph& g, std::uint32_t replays = 1, std::int64_t i_step = 0);
  void run(Graph& g) {
    submit(g);
    wait();
  }

  // ---- dynamic tasks
  // A task ready at once. Inside a body it goes to this worker (depth-first).
  void spawn(TaskFn fn, void* arg = nullptr, std::int64_t i = 0, std::int64_t j = 0,
             int priority = 0);
  template <class F>
  void spawn(F f, int priority = 0) {  // f: trivially copyable, <= 16 bytes
    detail::DynTask* t = new_task(nullptr, nullptr, 0, 0, priority, false);
    detail::store_inline_closure(t, f);
    make_ready(t);
  }

  // Called by the owner thread outside wait(), spawn and create are
  // scheduling points: with Options::max_outstanding reached they first run
  // some ready tasks.

  // A task that runs once submitted and all its dependencies completed.
  TaskHandle create(TaskFn fn, void* arg = nullptr, std::int64_t i = 0, std::int64_t j = 0,
                    int priority = 0);
  template <class F>
  TaskHandle create(F f, int priority = 0) {
    detail::DynTask* t = new_task(nullptr, nullptr, 0, 0, priority, true);
    detail::store_inline_closure(t, f);
    return TaskHandle(this, t);
  }
  // `succ` (created, not yet submitted) runs after `pred` (any state; a no-op
  // when pred already completed). Safe while pred is running or completing.
  void add_dependency(const TaskHandle& pred, const TaskHandle& succ);
  void submit(TaskHandle& t);

  // Runs tasks on the calling thread until every task discovered so far
  // (graph nodes, spawned and created tasks) has executed.
  void wait();

  Stats stats() const;
  void reset_stats();

 private:
  friend class TaskHandle;
  detail::DynTask* new_task(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority,
                            bool handle);
  void make_ready(detail::DynTask* t);
  void release(detail::DynTask* t);

  std::unique_ptr<detail::Impl> impl_;
};

inline void TaskHandle::reset() {
  if (t_) rt_->release(std::exchange(t_, nullptr));
}

}  // namespace tbrt
