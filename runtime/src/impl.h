// Runtime internals: workers, the scheduler loop, termination detection.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "backoff.h"
#include "parking.h"
#include "pool.h"
#include "tbrt/clock.h"
#include "tbrt/deque.h"
#include "tbrt/fifo_queue.h"
#include "tbrt/runtime.h"

namespace tbrt::detail {

class Impl;

// One submitted graph's list of homed nodes for one worker, consumed in order, once per
// replay submitted together.
struct HomeRun {
  const HomeEntry* begin;
  const HomeEntry* pos;
  const HomeEntry* end;
  Node* const* preds;     // the graph's home_preds_
  std::uint32_t replay;   // the completions count of a predecessor done in this replay
  std::uint32_t checked;  // predecessors of *pos already seen done (they stay done)
  std::uint32_t left;     // replays after this one
  std::int64_t shift;     // added to a node's i in this replay
  std::int64_t i_step;    // added to shift per replay
};

// Everything here is touched by its owner thread only, except `deque` (thieves)
// and the statistics (read by the main thread after wait(), ordered by `state`).
struct alignas(64) Worker {
  Impl* rt = nullptr;
  int id = 0;
  bool in_loop = false;  // inside the scheduler loop: always for threads 1.., in wait() for 0
  Task* next = nullptr;  // depth-first slot: runs next, never stolen
  std::int64_t home_shift = 0;  // HomeRun::shift of the homed node next_home returned last
  // Termination counters since the last flush (thread-local, non-atomic).
  std::int64_t discovered = 0;
  std::int64_t executed = 0;
  // Statistics, in ticks. `mark` is where the current overhead period began.
  std::uint64_t work = 0, overhead = 0, discovery = 0, mark = 0;
  std::uint64_t tasks = 0, steals = 0;
  // Monotone counts of dynamic tasks, read by the owner's throttle check:
  // atomics written with plain load+store by their single writer.
  std::atomic<std::uint64_t> created{0}, finished{0};
  std::uint32_t since_throttle_check = 0;
  std::uint64_t rng = 1;
  LocalPool task_pool, edge_pool;
  WorkDeque deque;
  std::thread thread;
  // Homed work (Graph::add's home): a ring of runs the owner thread publishes (slot, then
  // home_back) and this worker consumes (home_front, published for the owner to reuse
  // slots). A worker with an unfinished run stays active while its next node waits for a
  // predecessor, and parks only after a long wait (a busy machine): completing a node
  // that another home polls wakes such sleepers (see Impl::park_for_home).
  static constexpr std::uint32_t kHomeRing = 256;
  std::uint64_t home_front_local = 0, home_seen = 0;
  alignas(64) std::atomic<std::uint64_t> home_front{0};
  alignas(64) std::atomic<std::uint64_t> home_back{0};
  HomeRun home_ring[kHomeRing];
};

// Every worker being in the loop's idle phase with all discovered tasks
// executed is one 64-bit word: pending * 2^20 + active threads. Threads fold
// their local counters in only when going idle, so the word is written on
// idle/active transitions, not per task; it reads 0 exactly when every
// thread is idle and the sum of flushed (discovered - executed) is zero.
// Packing both in one word makes that test a single atomic read.
constexpr int kActiveBits = 20;
constexpr std::int64_t kPendingUnit = std::int64_t{1} << kActiveBits;

class Impl {
 public:
  explicit Impl(const Options& o);
  ~Impl();

  // The worker of the calling thread, or nullptr for foreign threads.
  Worker* current() {
    Worker* w = tls_worker;
    if (w && w->rt == this) return w;
    if (std::this_thread::get_id() == owner_) return workers_[0].get();
    return nullptr;
  }
  Worker& caller();  // current(), aborting for foreign threads

  // Makes a task whose inputs are all present runnable on worker w.
  void make_ready(Worker& w, Task* t) {
    if (fifo_) {
      fifo_q_.push(t, w.in_loop ? std::memory_order_release : std::memory_order_seq_cst);
      wake_after_push(w);
      return;
    }
    if (w.in_loop && depth_first_) {
      if (!w.next) {
        w.next = t;
        return;
      }
      if (t->priority > w.next->priority) std::swap(t, w.next);
    }
    push_prio(w, t);
  }

  void wait();
  // Owner thread, from submit: worker `home % workers` runs this list next.
  void publish_home_run(int home, const HomeRun& run);
  // Owner thread, after publishing: wakes sleepers, since nobody pushes homed work.
  void wake_for_home_runs() {
    parking_.wake_all_exact();
    home_parking_.wake_all_exact();
  }
  // Owner thread outside wait(), on dynamic task creation.
  void maybe_throttle(Worker& w) {
    if (++w.since_throttle_check >= 256 && opts_.max_outstanding) {
      w.since_throttle_check = 0;
      throttle(w);
    }
  }
  void add_discovery(Worker& w, std::uint64_t since) {
    if (!w.in_loop) w.discovery += ticks() - since;
  }
  bool measure_discovery(const Worker& w) const { return measure_ && !w.in_loop; }

  Options opts_;
  bool fifo_, depth_first_, measure_, pinned_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  GlobalPool task_global_{sizeof(DynTask), 64};
  GlobalPool edge_global_{sizeof(Edge), sizeof(Edge)};
  std::uint64_t window_start_ = 0, window_end_ = 0;

  static inline thread_local Worker* tls_worker = nullptr;

 private:
  // Inside the loop a push is published with release and wakes by hint; from
  // outside (main thread building work) with seq_cst and an exact wake, since
  // then nobody else may be awake to notice the task.
  void wake_after_push(Worker& w) {
    if (w.in_loop) parking_.wake_one_hint();
    else parking_.wake_one_exact();
  }
  void push_prio(Worker& w, Task* t);
  void throttle(Worker& w);
  std::uint64_t outstanding() const;

  template <bool kMeasure>
  void loop(Worker& w);
  template <bool kMeasure>
  void run(Worker& w, Task* t);
  template <bool kMeasure>
  void run_homed(Worker& w, Node* n);
  template <bool kMeasure>
  Task* find_work(Worker& w);
  Task* steal_any(Worker& w);
  Task* next_home(Worker& w);
  Task* park_for_home(Worker& w, Backoff& backoff);
  bool has_home_runs(Worker& w) {
    return w.home_back.load(std::memory_order_seq_cst) != w.home_front_local;
  }
  void complete_node(Worker& w, Node* n);
  void release_successors(Worker& w, Node* n);
  void complete_dyn(Worker& w, DynTask* t);
  void go_idle(Worker& w);
  void go_active(Worker& w);
  void thread_main(int id);

  std::thread::id owner_;
  std::vector<int> cpus_;
  alignas(64) std::atomic<std::int64_t> state_{0};
  alignas(64) std::atomic<Backoff::Clock::rep> no_yield_until_{0};  // read-mostly: own line
  std::atomic<bool> stop_{false};
  Parking parking_;       // idle workers
  Parking home_parking_;  // active workers whose homed run waits for another worker
  SharedFifo fifo_q_;
  Worker* saved_tls_ = nullptr;
  bool saved_affinity_ = false;
  std::vector<unsigned char> main_affinity_;
};

}  // namespace tbrt::detail
