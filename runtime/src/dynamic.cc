// Dynamic tasks: created on the fly, wired to predecessors that may be running.
//
// A created task holds one extra "submit guard" input, so it cannot start
// while its dependencies are being added. A predecessor's successor list is a
// lock-free stack that completion atomically swaps for "closed": an edge is
// either pushed before the swap (and then notified) or its CAS sees "closed"
// (and the dependency is already satisfied). No locks, no lost edges.
#include <cstdio>
#include <cstdlib>

#include "impl.h"

namespace tbrt {

using detail::DynTask;
using detail::Edge;
using detail::Worker;

DynTask* Runtime::new_task(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority,
                           bool handle) {
  detail::Impl& rt = *impl_;
  Worker& w = rt.caller();
  if (!w.in_loop) rt.maybe_throttle(w);
  const std::uint64_t t0 = rt.measure_discovery(w) ? ticks() : 0;
  auto* t = new (w.task_pool.alloc()) DynTask;
  t->fn = fn;
  t->arg = arg;
  t->i = i;
  t->j = j;
  t->priority = priority;
  t->kind = detail::Kind::kDynamic;
  if (handle) {
    t->flags = DynTask::kHasHandle;
    t->refs.store(2, std::memory_order_relaxed);  // handle + execution
    t->pending.store(DynTask::kUnsubmitted, std::memory_order_relaxed);
  }
  ++w.discovered;
  w.created.store(w.created.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (t0) rt.add_discovery(w, t0);
  return t;
}

void Runtime::make_ready(DynTask* t) {
  detail::Impl& rt = *impl_;
  Worker& w = rt.caller();
  const std::uint64_t t0 = rt.measure_discovery(w) ? ticks() : 0;
  rt.make_ready(w, t);
  if (t0) rt.add_discovery(w, t0);
}

void Runtime::spawn(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority) {
  make_ready(new_task(fn, arg, i, j, priority, false));
}

TaskHandle Runtime::create(TaskFn fn, void* arg, std::int64_t i, std::int64_t j, int priority) {
  return TaskHandle(this, new_task(fn, arg, i, j, priority, true));
}

void Runtime::add_dependency(const TaskHandle& pred, const TaskHandle& succ) {
  DynTask* p = pred.t_;
  DynTask* s = succ.t_;
  if (!p || !s || (s->flags & DynTask::kSubmitted) || p == s) {
    std::fprintf(stderr, "tbrt: add_dependency needs live handles and an unsubmitted successor\n");
    std::abort();
  }
  detail::Impl& rt = *impl_;
  Worker& w = rt.caller();
  const std::uint64_t t0 = rt.measure_discovery(w) ? ticks() : 0;
  // acquire (here and on CAS failure): seeing "closed" means p completed, and
  // its writes must be visible to s, which we will make runnable.
  Edge* head = p->succs.load(std::memory_order_acquire);
  if (head != detail::closed_edges()) {
    auto* e = new (w.edge_pool.alloc()) Edge{s, head};
    // release: p's completer, acquiring the list, sees e's fields.
    while (!p->succs.compare_exchange_weak(head, e, std::memory_order_release,
                                           std::memory_order_acquire)) {
      if (head == detail::closed_edges()) break;
      e->next = head;
    }
    if (head == detail::closed_edges())
      w.edge_pool.free(e);
    else
      ++s->ndeps;  // p will decrement s->pending once; submit accounts for it
  }
  if (t0) rt.add_discovery(w, t0);
}

void Runtime::submit(TaskHandle& h) {
  DynTask* t = h.t_;
  if (!t || (t->flags & DynTask::kSubmitted)) return;
  t->flags |= DynTask::kSubmitted;
  // pending = kUnsubmitted - (preds done); after this, ndeps - (preds done).
  // acq_rel: whoever reaches 0 may run t and must see the predecessors'
  // writes; its own release pairs with their acquire.
  const std::int32_t d = DynTask::kUnsubmitted - t->ndeps;
  if (t->pending.fetch_sub(d, std::memory_order_acq_rel) == d) make_ready(t);
}

void Runtime::release(DynTask* t) {
  if (!(t->flags & DynTask::kSubmitted)) {
    TaskHandle h(this, t);  // borrow: submit, then hand the pointer back
    submit(h);
    h.t_ = nullptr;
  }
  if (t->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (Worker* w = impl_->current())
    w->task_pool.free(t);
  else
    impl_->task_global_.give_one(t);
}

}  // namespace tbrt
