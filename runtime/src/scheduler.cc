// The worker loop: take a task (slot, own deque, steal), run it, make its
// successors ready; when out of work, flush the termination counters and back off.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <immintrin.h>

#include "impl.h"

namespace tbrt::detail {

namespace {
constexpr int kSearchRounds = 16;  // steal sweeps while still counted active, then idle (Backoff)
constexpr int kMaxLift = 8;        // priority insertion looks this deep at most
}  // namespace

// LLP-style insertion: keep higher priorities towards the head, where the
// owner pops. Equal priority goes on top (newest first, cache-warm). A lower
// one is slid under the higher-priority tasks at the head by popping them and
// pushing them back: only standard deque operations, so it stays correct
// against concurrent thieves (a thief may simply take one of them meanwhile).
void Impl::push_prio(Worker& w, Task* t) {
  const std::memory_order publish =
      w.in_loop ? std::memory_order_release : std::memory_order_seq_cst;
  WorkDeque& d = w.deque;
  if (!d.maybe_nonempty() || t->priority >= d.head_priority()) {
    d.push(t, t->priority, publish);
  } else {
    Task* lifted[kMaxLift];
    int n = 0;
    while (n < kMaxLift && d.maybe_nonempty() && d.head_priority() > t->priority) {
      Task* x = d.pop();
      if (!x) break;
      lifted[n++] = x;
    }
    d.push(t, t->priority, publish);
    // Popped tasks are ours alone until pushed again, so reading them is safe.
    while (n > 0) {
      Task* x = lifted[--n];
      d.push(x, x->priority, publish);
    }
  }
  wake_after_push(w);
}

Task* Impl::steal_any(Worker& w) {
  if (fifo_) return fifo_q_.pop();
  const std::size_t n = workers_.size();
  if (n == 1) return nullptr;
  w.rng ^= w.rng << 13;  // xorshift: victims in random order spread contention
  w.rng ^= w.rng >> 7;
  w.rng ^= w.rng << 17;
  std::size_t v = w.rng % n;
  for (std::size_t k = 0; k < n; ++k, v = v + 1 == n ? 0 : v + 1) {
    if (int(v) == w.id) continue;
    if (Task* t = workers_[v]->deque.steal()) {
      ++w.steals;
      return t;
    }
  }
  return nullptr;
}

// Homed work: the first node of any unfinished run whose predecessors are all done.
// Runs are independent graphs, so trying each one's head (not just the oldest's) lets
// graphs in flight together fill each other's waits; each list keeps its own order, and
// replays submitted together follow each other in it.
Task* Impl::next_home(Worker& w) {
  for (std::uint64_t k = w.home_front_local;; ++k) {
    if (k == w.home_seen) {  // looked at every known run: any new one?
      const std::uint64_t back = w.home_back.load(std::memory_order_acquire);
      if (back == w.home_seen) return nullptr;
      w.home_seen = back;
    }
    HomeRun& r = w.home_ring[k % Worker::kHomeRing];
    const HomeEntry* pos = r.pos;
    if (pos == r.end) continue;
    // Locals: the acquire loads below would make the compiler reload r's fields after each.
    const std::uint32_t replay = r.replay;
    Node* const* preds = r.preds;
    std::uint32_t p = pos->preds_begin + r.checked;
    // acquire: pairs with the runner's release in complete_node (the inputs' writes).
    // "At least" the replay: with replays in flight together a predecessor may be ahead.
    while (p < pos->carried_begin &&
           std::int32_t(preds[p]->completions.load(std::memory_order_acquire) - replay) >= 0)
      ++p;
    if (p >= pos->carried_begin)
      while (p < pos->preds_end &&
             std::int32_t(preds[p]->completions.load(std::memory_order_acquire) - (replay - 1)) >= 0)
        ++p;
    if (p < pos->preds_end) {
      r.checked = p - pos->preds_begin;  // they stay done
      continue;
    }
    Task* const node = pos->node;
    w.home_shift = r.shift;
    r.checked = 0;
    if (++pos == r.end && r.left > 0) {  // the next replay of this run
      pos = r.begin;
      --r.left;
      r.replay = replay + 1;
      r.shift += r.i_step;
    }
    r.pos = pos;
    if (pos == r.end && k == w.home_front_local) {
      std::uint64_t f = k + 1;
      while (f < w.home_seen && w.home_ring[f % Worker::kHomeRing].pos ==
                                    w.home_ring[f % Worker::kHomeRing].end)
        ++f;
      w.home_front_local = f;
      // release: the owner may reuse these slots once it sees this.
      w.home_front.store(f, std::memory_order_release);
    }
    return node;
  }
}

// A homed run has waited long for another worker's node: that worker is likely off its core
// (more threads than free cores), and spinning or yielding here would take the core from it.
// Sleep until a node that another home polls completes (complete_node's hint, or the
// timeout should the hint be missed), or until a new run is published (an exact wake).
Task* Impl::park_for_home(Worker& w, Backoff& backoff) {
  const std::uint32_t seen = home_parking_.prepare();
  Task* t = nullptr;
  // seq_cst: either this sees the owner's new home_back, or the owner sees us announced.
  if (w.home_back.load(std::memory_order_seq_cst) != w.home_seen || (t = next_home(w)) ||
      (t = steal_any(w))) {
    home_parking_.cancel();
    return t;
  }
  home_parking_.sleep(seen, backoff.next_sleep_us());
  return nullptr;
}

void Impl::publish_home_run(int home, const HomeRun& run) {
  Worker& h = *workers_[std::size_t(home) % workers_.size()];
  const std::uint64_t back = h.home_back.load(std::memory_order_relaxed);
  if (back - h.home_front.load(std::memory_order_acquire) >= Worker::kHomeRing) {
    std::fprintf(stderr, "tbrt: more than %u graphs with homed nodes in flight on worker %d\n",
                 Worker::kHomeRing, h.id);
    std::abort();
  }
  h.home_ring[back % Worker::kHomeRing] = run;
  // seq_cst: a worker about to sleep re-reads home_back after announcing itself (Dekker,
  // with wake_for_home_runs); release alone would do for the slot's contents.
  h.home_back.store(back + 1, std::memory_order_seq_cst);
}

inline void Impl::complete_node(Worker& w, Node* n) {
  // Release: a homed successor polling this sees the body's writes. One writer per
  // replay (the runner), and replays are ordered by wait() or, homed, by the home's list:
  // a load and a store do.
  n->completions.store(n->completions.load(std::memory_order_relaxed) + 1,
                       std::memory_order_release);
  if (n->flags & Node::kPolledElsewhere) {
#ifdef __CLDEMOTE__
    _cldemote(n);
#endif
    // A relaxed load while nobody sleeps; all sleepers, since we do not know who polls n.
    home_parking_.wake_all_hint();
  }
  // Out of line: a homed node's successors are mostly homed too (they poll), and the push
  // path's registers would cost every such node a long prologue (29 instructions, 1 worker).
  if (n->nsucc) release_successors(w, n);
}

void Impl::release_successors(Worker& w, Node* n) {
  for (std::uint32_t k = 0; k < n->nsucc; ++k) {
    Node* s = n->succ[k];
    if (s->npreds == 1) {
      // Sole predecessor: no counter to touch; the deque push (or our own
      // program order) carries our writes to whoever runs s.
      make_ready(w, s);
    } else if (s->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // acq_rel: release publishes this body's writes to the runner of s;
      // acquire lets us (a possible runner) see the other predecessors'.
      // Re-arm for the next replay. Relaxed: the next replay is ordered after
      // this one by wait()'s synchronisation on state_.
      s->pending.store(s->npreds, std::memory_order_relaxed);
      make_ready(w, s);
    }
  }
}

void Impl::complete_dyn(Worker& w, DynTask* t) {
  w.finished.store(w.finished.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (!(t->flags & DynTask::kHasHandle)) {  // spawn()ed: nobody else can refer to it
    w.task_pool.free(t);
    return;
  }
  // With the handle gone (refs 1: ours), nobody can add successors any more,
  // so plain loads do; acquire pairs with the handle's release. Otherwise
  // close the list: an add_dependency after this sees the task is done.
  // acquire: see the edges published by add_dependency's CAS; release: one
  // that sees "closed" also sees this body's writes.
  const bool last = t->refs.load(std::memory_order_acquire) == 1;
  Edge* e = last ? t->succs.load(std::memory_order_acquire)
                 : t->succs.exchange(closed_edges(), std::memory_order_acq_rel);
  while (e) {
    Edge* next = e->next;
    DynTask* s = e->succ;
    if (s->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(w, s);
    w.edge_pool.free(e);
    e = next;
  }
  // acq_rel as for shared_ptr: the last owner sees all uses before freeing.
  if (last || t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) w.task_pool.free(t);
}

template <bool kMeasure>
void Impl::run(Worker& w, Task* t) {
  std::uint64_t start = 0;
  if constexpr (kMeasure) {
    start = ticks();
    w.overhead += start - w.mark;
  }
  // A homed node came from next_home, which left its replay's shift of i.
  t->fn(t->arg, t->home == Task::kNoHome ? t->i : t->i + w.home_shift, t->j);
  if constexpr (kMeasure) {
    w.mark = ticks();
    w.work += w.mark - start;
  }
  ++w.executed;
  ++w.tasks;
  if (t->kind == Kind::kNode)
    complete_node(w, static_cast<Node*>(t));
  else
    complete_dyn(w, static_cast<DynTask*>(t));
}

void Impl::go_idle(Worker& w) {
  const std::int64_t delta = (w.discovered - w.executed) * kPendingUnit - 1;
  w.discovered = w.executed = 0;
  // seq_cst: the main thread checks state_ after announcing it sleeps; the
  // thread that brings the word to 0 must then see it and wake it.
  // Being an RMW, it also releases this thread's work to whoever reads 0.
  if (state_.fetch_add(delta, std::memory_order_seq_cst) == -delta && w.id != 0)
    parking_.wake_all();  // everything done: wake wait() (once per run)
}

void Impl::go_active(Worker& w) {
  (void)w;
  // Before running a stolen task; the task itself keeps the word non-zero
  // until then (it is counted as discovered and not executed), so relaxed
  // ordering would do for termination; acq_rel keeps TSan's view simple.
  state_.fetch_add(1, std::memory_order_acq_rel);
}

template <bool kMeasure>
Task* Impl::find_work(Worker& w) {
  const bool is_main = w.id == 0;
  // acquire: the main thread reading 0 sees every task's effects.
  auto finished = [&](std::memory_order mo) {
    return is_main ? state_.load(mo) == 0 : stop_.load(mo);
  };
  for (;;) {
    // Still counted active: a few sweeps, or for as long as a homed run is unfinished
    // (its next node waits for another worker; going idle would cost two RMWs on the
    // shared termination word per wait). That extra wait is idle time, not overhead.
    bool waited = false;
    Backoff active_backoff(no_yield_until_);
    for (int k = 0; k < kSearchRounds || w.home_front_local != w.home_seen; ++k) {
      Task* t = next_home(w);
      if (!t) t = steal_any(w);
      if (!t && !active_backoff.keep_polling()) t = park_for_home(w, active_backoff);
      if (t) {
        if constexpr (kMeasure)
          if (waited) w.mark = ticks();
        return t;
      }
      if constexpr (kMeasure)
        if (k == kSearchRounds) {
          w.overhead += ticks() - w.mark;
          waited = true;
        }
    }
    if constexpr (kMeasure)
      if (!waited) w.overhead += ticks() - w.mark;  // else counted up to the wait already
    go_idle(w);
    Backoff idle_backoff(no_yield_until_);
    Task* t = nullptr;
    for (;;) {
      if (finished(std::memory_order_acquire)) return nullptr;
      if ((t = next_home(w)) || (t = steal_any(w))) break;
      if (w.home_front_local != w.home_seen) break;  // a new homed run: wait for it active
      if (idle_backoff.keep_polling()) continue;
      const std::uint32_t seen = parking_.prepare();
      if (finished(std::memory_order_seq_cst)) {
        parking_.cancel();
        return nullptr;
      }
      if (has_home_runs(w) || (t = steal_any(w))) {
        parking_.cancel();
        if (t) break;
        continue;
      }
      parking_.sleep(seen, idle_backoff.next_sleep_us());
    }
    go_active(w);
    if constexpr (kMeasure) w.mark = ticks();
    if (t) return t;
  }
}

// A homed node from next_home: no dispatch on the task's kind or home (the path a homed run's
// every task takes, so it is kept short: 97 instructions per task with run(), 1 worker).
template <bool kMeasure>
inline void Impl::run_homed(Worker& w, Node* n) {
  std::uint64_t start = 0;
  if constexpr (kMeasure) {
    start = ticks();
    w.overhead += start - w.mark;
  }
  n->fn(n->arg, n->i + w.home_shift, n->j);
  if constexpr (kMeasure) {
    w.mark = ticks();
    w.work += w.mark - start;
  }
  ++w.executed;
  ++w.tasks;
  complete_node(w, n);
}

template <bool kMeasure>
void Impl::loop(Worker& w) {
  for (;;) {
    Task* t = w.next;
    if (t) {
      w.next = nullptr;
    } else if ((t = next_home(w))) {
      run_homed<kMeasure>(w, static_cast<Node*>(t));
      continue;
    } else {
      t = fifo_ ? fifo_q_.pop() : w.deque.pop();
      if (!t && !(t = find_work<kMeasure>(w))) return;
    }
    run<kMeasure>(w, t);
  }
}

std::uint64_t Impl::outstanding() const {
  // Relaxed, unsynchronised sums: an estimate is all the throttle needs.
  std::uint64_t c = 0, f = 0;
  for (const auto& w : workers_) {
    c += w->created.load(std::memory_order_relaxed);
    f += w->finished.load(std::memory_order_relaxed);
  }
  return c > f ? c - f : 0;
}

// The owner has created too many unfinished tasks: act as a worker for a
// while (own deque first, then steal), until half of them are done or there
// is nothing runnable. Tasks blocked on dependencies cannot be helped.
void Impl::throttle(Worker& w) {
  const std::uint64_t limit = opts_.max_outstanding;
  if (outstanding() <= limit) return;
  w.in_loop = true;  // successors may use the depth-first slot meanwhile
  if (measure_) w.mark = ticks();
  bool more = true;
  while (more && outstanding() > limit / 2) {
    for (int k = 0; k < 256; ++k) {
      Task* t = w.next;
      if (t) {
        w.next = nullptr;
      } else if (!(t = fifo_ ? fifo_q_.pop() : w.deque.pop()) && !(t = steal_any(w))) {
        more = false;
        break;
      }
      if (measure_) run<true>(w, t); else run<false>(w, t);
    }
  }
  w.in_loop = false;
  if (Task* t = w.next) {  // nobody runs the slot outside the loop: make it stealable
    w.next = nullptr;
    push_prio(w, t);
  }
}

void Impl::thread_main(int id) {
  Worker& w = *workers_[id];
  tls_worker = &w;
  w.in_loop = true;
  w.mark = ticks();
  if (measure_) loop<true>(w); else loop<false>(w);
}

void Impl::wait() {
  Worker& w = caller();
  if (w.id != 0 || w.in_loop) {
    std::fprintf(stderr, "tbrt: wait() must be called by the runtime's owner, outside tasks\n");
    std::abort();
  }
  Worker* saved = tls_worker;
  tls_worker = &w;
  w.in_loop = true;
  w.mark = ticks();
  if (measure_) loop<true>(w); else loop<false>(w);
  // state_ is 0: every thread idle, nothing pending. The owner counts as
  // active again while it builds the next batch of work.
  state_.fetch_add(1, std::memory_order_acq_rel);
  w.in_loop = false;
  tls_worker = saved;
  window_end_ = ticks();
}

}  // namespace tbrt::detail
